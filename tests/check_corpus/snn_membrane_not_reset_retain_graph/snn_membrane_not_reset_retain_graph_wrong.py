# https://github.com/jeshraghian/snntorch/issues/250
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

class FastSigmoidSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem_shift):
        ctx.save_for_backward(mem_shift)
        return (mem_shift > 0).float()
    @staticmethod
    def backward(ctx, grad_out):
        (mem_shift,) = ctx.saved_tensors
        return grad_out / (1 + 25 * mem_shift.abs()) ** 2

class Leaky(nn.Module):
    def __init__(self, beta=0.9, threshold=1.0):
        super().__init__()
        self.beta, self.threshold, self.mem = beta, threshold, None

    def reset(self):
        self.mem = None
    def forward(self, cur):
        if self.mem is None:
            self.mem = torch.zeros_like(cur)
        self.mem = self.beta * self.mem + cur
        spk = FastSigmoidSpike.apply(self.mem - self.threshold)
        self.mem = self.mem - spk.detach() * self.threshold
        return spk, self.mem

class Net(nn.Module):
    def __init__(self, num_steps=10):
        super().__init__()
        self.num_steps = num_steps
        self.fc1 = nn.Linear(20, 5)
        self.lif1 = Leaky()

    def forward(self, x):
        spk_rec, mem_rec = [], []
        for _ in range(self.num_steps):
            spk, mem = self.lif1(self.fc1(x))
            spk_rec.append(spk)
            mem_rec.append(mem)
        return torch.stack(spk_rec), torch.stack(mem_rec)

def count_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(f for f, _ in fn.next_functions)
    return len(seen)

def mem_loss(mem_rec, y):
    return sum(F.cross_entropy(m, y) for m in mem_rec)

net = Net()
optimizer = torch.optim.Adam(net.parameters(), lr=5e-3)
data = [(torch.rand(16, 20), torch.randint(0, 5, (16,))) for _ in range(12)]
for step, (x, y) in enumerate(data):
    spk_rec, mem_rec = net(x)
    loss = mem_loss(mem_rec, y)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    used = net.fc1.weight.grad.clone()
    saved_mem, net.lif1.mem = net.lif1.mem, None
    fresh = torch.autograd.grad(mem_loss(net(x)[1], y), net.fc1.weight)[0]
    net.lif1.mem = saved_mem
    rel = ((used - fresh).norm() / fresh.norm()).item()
    print(f"step {step}: autograd nodes behind loss {count_nodes(loss)}, "
          f"rel diff |grad used - grad of this batch alone| {rel:.3f}")
    optimizer.step()
