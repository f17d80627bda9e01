# https://github.com/ml-research/NeSyXIL/issues/3
import torch
import torch.nn as nn

torch.manual_seed(0)

N_SLOTS, N_ATTRS, N_CLASSES = 5, 8, 3

log_softmax = torch.nn.LogSoftmax(dim=1)


class SlotAttentionStub(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, N_SLOTS * N_ATTRS))

    def forward(self, img):
        return torch.sigmoid(self.enc(img)).view(-1, N_SLOTS, N_ATTRS)


class SetClassifier(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(N_ATTRS, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.rho = nn.Sequential(nn.ReLU(), nn.Linear(hidden, N_CLASSES))

    def forward(self, attrs):
        return self.rho(self.phi(attrs).max(dim=1)[0])


class ConceptLearner(nn.Module):
    def __init__(self):
        super().__init__()
        self.img2state_net = SlotAttentionStub()
        self.set_cls = SetClassifier()

    def forward(self, img):
        with torch.no_grad():
            attrs = self.img2state_net(img)
        attrs = attrs.requires_grad_(True)
        return self.set_cls(attrs), attrs


def model_input_gradients(log_prob_ys, X):
    return torch.autograd.grad(log_prob_ys, X, torch.ones_like(log_prob_ys), create_graph=True)[0]


def rrr_loss_function(A, X, y, logits, criterion, l2_grads=1000, reduce_func=torch.sum):
    log_prob_ys = log_softmax(logits)
    right_answer_loss = criterion(log_prob_ys, y)

    gradXes = model_input_gradients(log_prob_ys, X)

    A_gradX = torch.mul(A, gradXes) ** 2
    right_reason_loss = torch.sum(A_gradX, dim=list(range(1, len(A_gradX.shape))))
    right_reason_loss = reduce_func(right_reason_loss)
    right_reason_loss *= l2_grads

    res = right_answer_loss + right_reason_loss
    return res, right_answer_loss, right_reason_loss


def run_rrr(net, loader, optimizer, criterion, l2_grads):
    net.train()
    for i, (imgs, img_class_ids, table_expl) in enumerate(loader):
        output_cls, output_attr = net(imgs)
        loss, ra_loss, rr_loss = rrr_loss_function(table_expl, output_attr, img_class_ids, output_cls,
                                                   criterion, l2_grads=l2_grads)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"batch {i} loss {loss.item():.4f} ra {ra_loss.item():.4f} rr {rr_loss.item():.4f}")


loader = []
for _ in range(3):
    imgs = torch.randn(6, 3, 8, 8)
    table_expl = torch.zeros(6, N_SLOTS, N_ATTRS)
    table_expl[:, :, 4:6] = 1.0
    loader.append((imgs, torch.randint(0, N_CLASSES, (6,)), table_expl))

net = ConceptLearner()
optimizer = torch.optim.Adam(net.set_cls.parameters(), lr=1e-3)
criterion = nn.NLLLoss()
run_rrr(net, loader, optimizer, criterion, l2_grads=10)
