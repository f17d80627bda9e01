# written
# First-order DARTS on a toy regression: each mixed edge is a softmax(alpha)-weighted sum of
# candidate ops. Alternate: architecture step on the validation loss (alphas), weight step on the
# training loss (op weights). The mixing weights are computed once, when the supernet is built.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


class MixedEdge(torch.nn.Module):
    def __init__(self, d, alpha):
        super().__init__()
        self.ops = torch.nn.ModuleList(
            [
                torch.nn.Linear(d, d),
                torch.nn.Sequential(torch.nn.Linear(d, d), torch.nn.Tanh()),
                torch.nn.Identity(),
            ]
        )
        self.mix = F.softmax(alpha, dim=-1)  # mixing weights, computed once here

    def forward(self, x):
        return sum(w * op(x) for w, op in zip(self.mix, self.ops))


alphas = [torch.zeros(3, requires_grad=True) for _ in range(2)]
edges = torch.nn.ModuleList([MixedEdge(8, a) for a in alphas])
head = torch.nn.Linear(8, 1)


def supernet(x):
    for e in edges:
        x = e(x)
    return head(x)


w_opt = torch.optim.SGD(list(edges.parameters()) + list(head.parameters()), lr=0.05, momentum=0.9)
a_opt = torch.optim.Adam(alphas, lr=3e-2)
Xtr, Xva = torch.randn(128, 8), torch.randn(64, 8)


def f(X):
    return torch.tanh(X[:, :1] - X[:, 1:2])


Ytr, Yva = f(Xtr), f(Xva)

for step in range(5):
    a_opt.zero_grad()
    F.mse_loss(supernet(Xva), Yva).backward()  # architecture step (first-order)
    a_opt.step()
    w_opt.zero_grad()
    loss = F.mse_loss(supernet(Xtr), Ytr)  # weight step
    loss.backward()
    w_opt.step()
    print(step, loss.item(), [a.detach().softmax(-1).tolist() for a in alphas][0])
