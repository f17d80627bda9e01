# https://github.com/Koukyosyumei/AIJack/issues/159
# A faithful reduction of AIJack's FedAVGClient (upload_gradients,
# download, local_train), FedAVGServer (receive_local_gradients,
# update_from_gradients, distribute), SGDFLOptimizer, FedAVGAPI.run,
# attach_gradient_inversion_attack_to_server and
# GradientInversion_Attack (_setup_attack, _generate_fake_gradients,
# closure with l2 distance, LBFGS attack loop) as of the commit before
# the fix (344f171); the MNIST LeNet became a tiny MLP, the data one
# random 1-sample batch.
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)


# ---- aijack.collaborative.fedavg -------------------------------------
class SGDFLOptimizer:
    def __init__(self, parameters, lr=0.01, weight_decay=0.0):
        self.parameters = list(parameters)
        self.lr = lr
        self.weight_decay = weight_decay

    def step(self, grads):
        for param, grad in zip(self.parameters, grads):
            param.data -= self.lr * grad


class FedAVGClient(nn.Module):
    def __init__(self, model, user_id=0, lr=0.1):
        super().__init__()
        self.model = model
        self.user_id = user_id
        self.lr = lr
        self.prev_parameters = []
        for param in self.model.parameters():
            self.prev_parameters.append(copy.deepcopy(param))

    def forward(self, x):
        return self.model(x)

    def upload_gradients(self):
        """Upload the local gradients"""
        gradients = []
        for param, prev_param in zip(
            self.model.parameters(), self.prev_parameters
        ):
            gradients.append((prev_param - param) / self.lr)
        return gradients

    def download(self, new_global_model):
        self.model.load_state_dict(new_global_model)
        self.prev_parameters = []
        for param in self.model.parameters():
            self.prev_parameters.append(copy.deepcopy(param))

    def local_train(
        self,
        local_epoch,
        criterion,
        trainloader,
        optimizer,
        communication_id=0,
    ):
        for i in range(local_epoch):
            running_loss = 0.0
            running_data_num = 0
            for _, data in enumerate(trainloader, 0):
                inputs, labels = data
                optimizer.zero_grad()
                self.zero_grad()
                outputs = self(inputs)
                loss = criterion(outputs, labels)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()
                running_data_num += inputs.shape[0]
            print(
                f"communication {communication_id}, epoch {i}: "
                f"client-{self.user_id + 1}",
                f"{running_loss / running_data_num:.3f}",
            )


class FedAVGServer:
    def __init__(self, clients, global_model, lr=0.1):
        self.clients = clients
        self.server_model = global_model
        self.lr = lr
        self.optimizer = SGDFLOptimizer(
            self.server_model.parameters(), lr=self.lr
        )
        self.uploaded_gradients = []
        self.weight = [1.0 / len(clients)] * len(clients)

    def receive(self, use_gradients=True):
        self.receive_local_gradients()

    def receive_local_gradients(self):
        self.uploaded_gradients = [
            c.upload_gradients() for c in self.clients
        ]

    def update_from_gradients(self):
        self.aggregated_gradients = [
            torch.zeros_like(params)
            for params in self.server_model.parameters()
        ]
        for i, gradients in enumerate(self.uploaded_gradients):
            for gradient_id in range(len(self.aggregated_gradients)):
                self.aggregated_gradients[gradient_id] = (
                    gradients[gradient_id] * self.weight[i]
                    + self.aggregated_gradients[gradient_id]
                )
        self.optimizer.step(self.aggregated_gradients)

    def distribute(self):
        for client in self.clients:
            client.download(self.server_model.state_dict())


class FedAVGAPI:
    def __init__(
        self,
        server,
        clients,
        criterion,
        local_optimizers,
        local_dataloaders,
        num_communication=1,
        local_epoch=1,
        use_gradients=True,
    ):
        self.server, self.clients, self.criterion = (
            server,
            clients,
            criterion,
        )
        self.local_optimizers, self.local_dataloaders = (
            local_optimizers,
            local_dataloaders,
        )
        self.num_communication, self.local_epoch, self.use_gradients = (
            num_communication,
            local_epoch,
            use_gradients,
        )

    def local_train(self, i):
        for client_idx in range(len(self.clients)):
            self.clients[client_idx].local_train(
                self.local_epoch,
                self.criterion,
                self.local_dataloaders[client_idx],
                self.local_optimizers[client_idx],
                communication_id=i,
            )

    def run(self):
        self.server.distribute()
        for i in range(self.num_communication):
            self.local_train(i)
            self.server.receive(use_gradients=self.use_gradients)
            self.server.update_from_gradients()
            self.server.distribute()


# ---- aijack.attack.inversion -----------------------------------------
def l2(fake_gradients, received_gradients, gradient_ignore_pos):
    distance = 0
    for i, (f_g, c_g) in enumerate(
        zip(fake_gradients, received_gradients)
    ):
        if i not in gradient_ignore_pos:
            distance += ((f_g - c_g) ** 2).sum()
    return distance


def _generate_fake_gradients(
    target_model, lossfunc, optimize_label, fake_x, fake_label
):
    fake_pred = target_model(fake_x)
    loss = lossfunc(fake_pred, fake_label.softmax(dim=-1))
    fake_gradients = torch.autograd.grad(
        loss,
        target_model.parameters(),
        create_graph=True,
        allow_unused=True,
    )
    return fake_pred, fake_gradients


class GradientInversion_Attack:
    def __init__(
        self,
        target_model,
        x_shape,
        y_shape=4,
        num_iteration=3,
        optimizer_class=torch.optim.LBFGS,
        lossfunc=None,
        distancefunc=l2,
        log_interval=1,
        **kwargs,
    ):
        if lossfunc is None:
            lossfunc = nn.CrossEntropyLoss()
        self.target_model = target_model
        self.x_shape, self.y_shape = x_shape, y_shape
        self.num_iteration = num_iteration
        self.optimizer_class = optimizer_class
        self.lossfunc = lossfunc
        self.distancefunc = distancefunc
        self.gradient_ignore_pos = []
        self.log_interval = log_interval
        self.kwargs = kwargs

    def _setup_closure(
        self, optimizer, fake_x, fake_label, received_gradients
    ):
        def closure():
            optimizer.zero_grad()
            fake_pred, fake_gradients = _generate_fake_gradients(
                self.target_model,
                self.lossfunc,
                True,
                fake_x,
                fake_label,
            )
            distance = self.distancefunc(
                fake_gradients,
                received_gradients,
                self.gradient_ignore_pos,
            )
            distance_val = distance.item()
            distance.backward(retain_graph=False)
            return distance_val

        return closure

    def attack(self, received_gradients, batch_size=1):
        fake_x = torch.randn(
            (batch_size,) + self.x_shape, requires_grad=True
        )
        fake_label = torch.randn(
            (batch_size, self.y_shape), requires_grad=True
        )
        optimizer = self.optimizer_class(
            [fake_x, fake_label], **self.kwargs
        )
        best_distance = float("inf")
        for i in range(1, self.num_iteration + 1):
            closure = self._setup_closure(
                optimizer, fake_x, fake_label, received_gradients
            )
            distance = optimizer.step(closure)
            if best_distance > distance:
                best_fake_x = fake_x.detach().clone()
                best_fake_label = fake_label.detach().clone()
                best_distance = distance
                best_iteration = i
            if self.log_interval != 0 and i % self.log_interval == 0:
                print(
                    f"iter={i}: {distance:.3f}, "
                    f"(best_iter={best_iteration}: {best_distance:.3f})"
                )
        return best_fake_x, best_fake_label


def attach_gradient_inversion_attack_to_server(
    cls, x_shape, target_client_id=0, **gradinvattack_kwargs
):
    class GradientInversionServerWrapper(cls):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.target_client_id = target_client_id
            self.attacker = GradientInversion_Attack(
                self.server_model, x_shape, **gradinvattack_kwargs
            )
            self.attack_results = []

        def receive(self, *args, **kwargs):
            super().receive(*args, **kwargs)
            self.attack_results.append([self.attack()])

        def attack(self, **kwargs):
            received_gradient = self.uploaded_gradients[
                self.target_client_id
            ]
            received_gradient = [
                cg.detach() for cg in received_gradient
            ]  # the fix (AIJack #160)
            return self.attacker.attack(received_gradient, **kwargs)

    return GradientInversionServerWrapper


# ---- the tutorial: "Reconstruct Single Data" -------------------------
def LeNet():
    return nn.Sequential(
        nn.Flatten(), nn.Linear(16, 8), nn.Sigmoid(), nn.Linear(8, 4)
    )


lr = 0.1
x, y = torch.randn(1, 1, 4, 4), torch.tensor([2])
net_1, net_2 = LeNet(), LeNet()
client = FedAVGClient(net_1, lr=lr)
local_optimizer = torch.optim.SGD(client.parameters(), lr=lr)
DLGFedAVGServer = attach_gradient_inversion_attack_to_server(
    FedAVGServer, (1, 4, 4), lr=1.0, max_iter=5
)
server = DLGFedAVGServer([client], net_2, lr=lr)
api = FedAVGAPI(
    server,
    [client],
    nn.CrossEntropyLoss(),
    [local_optimizer],
    [[(x, y)]],
    num_communication=2,
    local_epoch=1,
    use_gradients=True,
)
api.run()
best_x, best_label = server.attack_results[-1][0]
print(f"reconstruction error {((best_x - x) ** 2).mean().item():.3f}")
