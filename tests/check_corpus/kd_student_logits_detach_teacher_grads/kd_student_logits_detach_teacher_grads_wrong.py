# Knowledge distillation (Hinton et al. 2015): a small student learns
# from the labels and from a trained teacher's softened outputs. The
# teacher runs in eval mode; only the student has an optimizer.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, DIM, NCLS, T, ALPHA = 32, 16, 5, 4.0, 0.9
w_true = torch.randn(DIM, NCLS)
xs = torch.randn(6, N, DIM)
ys = (xs @ w_true).argmax(-1)
# the teacher, trained beforehand (here: set to the true weights)
teacher = nn.Linear(DIM, NCLS)
with torch.no_grad():
    teacher.weight.copy_(w_true.T)
    teacher.bias.zero_()
teacher.eval()
student = nn.Sequential(nn.Linear(DIM, 8), nn.ReLU(), nn.Linear(8, NCLS))
optimizer = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)


def reaches(losses, params):
    # do these losses' graphs lead to any of params? (walks grad_fn)
    ids, seen, todo = {id(p) for p in params}, set(), [lo.grad_fn for lo in losses]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if id(getattr(fn, "variable", None)) in ids:
            return True
        todo.extend(f for f, _ in fn.next_functions)
    return False


for step in range(6):
    x, y = xs[step], ys[step]
    optimizer.zero_grad()
    s_logits = student(x)
    ce = (1 - ALPHA) * F.cross_entropy(s_logits, y)
    ce.backward()
    t_logits = teacher(x)
    # kd.backward() asked to backward through the graph a second time
    # (ce's backward had freed the student's part); the answer: detach
    # the logits you already backpropagated
    kd = ALPHA * T * T * F.kl_div(
        F.log_softmax(s_logits.detach() / T, dim=1),
        F.softmax(t_logits / T, dim=1), reduction="batchmean",
    )
    reach = reaches([kd], student.parameters())
    kd.backward()
    optimizer.step()
    print(f"step {step}: kd reaches the student: {reach}; teacher holds "
          f"grads: {all(p.grad is not None for p in teacher.parameters())}")
held = {id(p) for g in optimizer.param_groups for p in g["params"]}
print("the optimizer holds the teacher's parameters:",
      any(id(p) in held for p in teacher.parameters()))
