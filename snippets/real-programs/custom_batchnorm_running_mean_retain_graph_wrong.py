# https://discuss.pytorch.org/t/implementing-batchnorm-in-pytorch-problem-with-updating-self-running-mean-and-self-running-var/49314/11
import torch
from torch import nn
from torch.distributions import uniform


class BatchNorm(nn.Module):
    def __init__(self, input, mode, momentum=0.9, epsilon=1e-05):
        super().__init__()
        self.momentum = momentum
        self.run_mode = 0  # 0: training, 1: testing
        self.insize = input
        self.epsilon = epsilon
        U = uniform.Uniform(torch.tensor([0.0]), torch.tensor([1.0]))
        size = torch.Size([self.insize])
        self.weight = nn.Parameter(U.sample(size).view(self.insize))
        self.bias = nn.Parameter(torch.zeros(self.insize))
        self.register_buffer("running_mean", torch.zeros(self.insize))
        self.register_buffer("running_var", torch.ones(self.insize))

    def forward(self, input, mode):
        if mode == 0:
            mean = input.mean([0, 2, 3])  # along channel axis
            var = input.var([0, 2, 3])
            n = input.shape[0]
            self.running_mean = (self.momentum * self.running_mean) + (
                1.0 - self.momentum
            ) * mean
            self.running_var = (self.momentum * self.running_var) + (
                1.0 - self.momentum
            ) * (n / (n - 1) * var)

            mean = self.running_mean
            var = self.running_var
        else:
            mean, var = self.running_mean, self.running_var
        shape = (1, self.insize, 1, 1)
        x_hat = (input - mean.view(shape)) / torch.sqrt(
            var.view(shape) + self.epsilon
        )
        return self.weight.view(shape) * x_hat + self.bias.view(shape)


torch.manual_seed(0)
conv, bn, head = nn.Conv2d(1, 3, 3), BatchNorm(3, 0), nn.Linear(108, 2)
params = [*conv.parameters(), *bn.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x, target = torch.randn(4, 1, 8, 8), torch.randint(2, (4,))

for step in range(2):
    out = head(bn(conv(x), 0).flatten(1))
    loss = nn.functional.cross_entropy(out, target)
    print(f"step {step}: loss {loss.item():.4f}")
    opt.zero_grad()
    # The message suggests keeping the graph.
    loss.backward(retain_graph=True)
    opt.step()
