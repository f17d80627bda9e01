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
            # The running estimates are statistics, not part of the
            # model's function: update them without a graph, and
            # normalise this batch with its own mean and variance.
            with torch.no_grad():
                self.running_mean = (
                    self.momentum * self.running_mean
                ) + (1.0 - self.momentum) * mean
                self.running_var = (
                    self.momentum * self.running_var
                ) + (1.0 - self.momentum) * (n / (n - 1) * var)
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

expected = torch.zeros(3)  # the running mean, recomputed apart
for step in range(3):
    with torch.no_grad():
        expected = 0.9 * expected + 0.1 * conv(x).mean([0, 2, 3])
    out = head(bn(conv(x), 0).flatten(1))
    loss = nn.functional.cross_entropy(out, target)
    print(f"step {step}: loss {loss.item():.4f}")
    opt.zero_grad()
    loss.backward()
    grads = {
        name: bool(p.grad.any())
        for name, p in [
            ("conv.weight", conv.weight),
            ("bn.weight", bn.weight),
            ("bn.bias", bn.bias),
            ("head.weight", head.weight),
        ]
    }
    opt.step()
print(f"non-zero grad in the last step: {grads}")
print(f"running_mean has a graph: {bn.running_mean.requires_grad}")
print(
    f"running_mean equals a fresh recompute: "
    f"{torch.allclose(bn.running_mean, expected)}"
)
