import torch
from torch import nn


class LeakyMemory(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.register_buffer("mem", torch.zeros(2, dim))

    def forward(self, x):
        self.mem = 0.9 * self.mem + torch.tanh(self.inp(x))
        return self.mem


def graph_size(node, seen):
    if node is not None and node not in seen:
        seen.add(node)
        for child, _ in node.next_functions:
            graph_size(child, seen)
    return len(seen)


def train(retain):
    torch.manual_seed(0)
    net = LeakyMemory(3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sizes = []
    for step in range(4):
        for t in range(4):
            out = net(torch.randn(2, 3))
        loss = out.pow(2).mean()
        sizes.append(graph_size(loss.grad_fn, set()))
        opt.zero_grad()
        loss.backward(retain_graph=retain)
        opt.step()
        if retain:
            net.mem.zero_()  # keeps the old graph attached
        else:
            net.mem.detach_().zero_()
    return net, sizes


wrong, wrong_sizes = train(retain=True)
right, right_sizes = train(retain=False)
same = all(
    torch.equal(a, b)
    for a, b in zip(wrong.parameters(), right.parameters())
)
print(f"retain_graph=True + zero_(): graph nodes {wrong_sizes}")
print(f"detach_().zero_():           graph nodes {right_sizes}")
print(f"same weights after training: {same}")
