# https://github.com/shenweichen/DeepCTR-Torch/issues/69
# A faithful reduction of DeepCTR-Torch's BaseModel
# (add_regularization_loss called in __init__, self.reg_loss added to
# every batch's loss in fit) and DeepFM, with fit's
# `total_loss.backward(retain_graph=True)` written as a plain
# `total_loss.backward()`, the change the issue asks about.
import torch
import torch.nn as nn

torch.manual_seed(0)

FIELDS = {
    "user_id": 6,
    "item_id": 8,
    "cate_id": 4,
}  # sparse features: vocabulary sizes


class Linear(nn.Module):
    def __init__(self, init_std=0.0001):
        super().__init__()
        self.embedding_dict = nn.ModuleDict(
            {feat: nn.Embedding(dim, 1) for feat, dim in FIELDS.items()}
        )
        for tensor in self.embedding_dict.values():
            nn.init.normal_(tensor.weight, mean=0, std=init_std)

    def forward(self, X):
        sparse_embedding_list = [
            self.embedding_dict[feat](X[:, i : i + 1].long())
            for i, feat in enumerate(FIELDS)
        ]
        return torch.sum(
            torch.cat(sparse_embedding_list, dim=-1),
            dim=-1,
            keepdim=False,
        )


class FM(nn.Module):
    def forward(self, inputs):
        square_of_sum = torch.pow(
            torch.sum(inputs, dim=1, keepdim=True), 2
        )
        sum_of_square = torch.sum(inputs * inputs, dim=1, keepdim=True)
        cross_term = square_of_sum - sum_of_square
        return 0.5 * torch.sum(cross_term, dim=2, keepdim=False)


class BaseModel(nn.Module):
    def __init__(
        self,
        embedding_size=4,
        l2_reg_linear=1e-3,
        l2_reg_embedding=1e-3,
        init_std=0.01,
    ):
        super().__init__()
        self.reg_loss = torch.zeros((1,))
        self.embedding_dict = nn.ModuleDict(
            {
                feat: nn.Embedding(dim, embedding_size)
                for feat, dim in FIELDS.items()
            }
        )
        for tensor in self.embedding_dict.values():
            nn.init.normal_(tensor.weight, mean=0, std=init_std)
        self.linear_model = Linear()

        self.add_regularization_loss(
            self.embedding_dict.parameters(), l2_reg_embedding
        )
        self.add_regularization_loss(
            self.linear_model.parameters(), l2_reg_linear
        )

    def add_regularization_loss(self, weight_list, weight_decay, p=2):
        reg_loss = torch.zeros((1,))
        for w in weight_list:
            if isinstance(w, tuple):
                l2_reg = torch.norm(
                    w[1],
                    p=p,
                )
            else:
                l2_reg = torch.norm(
                    w,
                    p=p,
                )
            reg_loss = reg_loss + l2_reg
        reg_loss = weight_decay * reg_loss
        self.reg_loss += reg_loss

    def compile(self, lr=0.05):
        self.optim = torch.optim.Adam(self.parameters(), lr=lr)
        self.loss_func = nn.functional.binary_cross_entropy

    def fit(self, x, y, batch_size=16, epochs=1):
        loader = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(x, y), batch_size=batch_size
        )
        model = self.train()
        loss_func = self.loss_func
        optim = self.optim
        for epoch in range(epochs):
            total_loss_epoch = 0
            for index, (x_train, y_train) in enumerate(loader):
                y_pred = model(x_train.float()).squeeze()

                optim.zero_grad()
                loss = loss_func(
                    y_pred, y_train.squeeze().float(), reduction="sum"
                )

                total_loss = loss + self.reg_loss

                total_loss_epoch += total_loss.item()
                total_loss.backward()
                optim.step()
                print(
                    f"epoch {epoch} batch {index}: "
                    f"total_loss {total_loss.item():.3f}"
                )
            print(
                f"epoch {epoch}: loss {total_loss_epoch / len(x):.3f}"
            )


class DeepFM(BaseModel):
    def __init__(self, embedding_size=4, dnn_hidden_units=(8,)):
        super().__init__(embedding_size=embedding_size)
        self.fm = FM()
        self.dnn = nn.Sequential(
            nn.Linear(
                len(FIELDS) * embedding_size, dnn_hidden_units[0]
            ),
            nn.ReLU(),
        )
        self.dnn_linear = nn.Linear(dnn_hidden_units[-1], 1, bias=False)

    def forward(self, X):
        sparse_embedding_list = [
            self.embedding_dict[feat](X[:, i : i + 1].long())
            for i, feat in enumerate(FIELDS)
        ]
        logit = self.linear_model(X)
        fm_input = torch.cat(sparse_embedding_list, dim=1)
        logit += self.fm(fm_input)
        dnn_input = torch.flatten(fm_input, start_dim=1)
        logit += self.dnn_linear(self.dnn(dnn_input))
        return torch.sigmoid(logit)


x = torch.stack(
    [torch.randint(0, dim, (64,)) for dim in FIELDS.values()], dim=1
)
y = ((x[:, 0] + x[:, 1]) % 2).float().unsqueeze(1)
model = DeepFM()
model.compile()
model.fit(x, y, batch_size=16, epochs=3)
