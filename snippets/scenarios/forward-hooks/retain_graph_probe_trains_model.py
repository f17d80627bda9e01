import torch
from torch import nn


def train(zero_grad_first):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # An online linear probe: what does the hidden layer encode?
    probe = nn.Linear(16, 3)
    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)

    activations = {}

    def save_output(module, args, output):
        activations["hidden"] = output  # still attached to the graph

    model[1].register_forward_hook(save_output)
    w = model[0].weight

    for step in range(3):
        if zero_grad_first:  # drops what the probe left in .grad
            opt.zero_grad()
        x, y = torch.randn(8, 4), torch.randn(8, 2)
        label = torch.randint(0, 3, (8,))
        loss = nn.functional.mse_loss(model(x), y)
        (own,) = torch.autograd.grad(loss, w, retain_graph=True)
        loss.backward(retain_graph=True)  # the "fix"
        leak = (w.grad - own).norm() / own.norm()
        print(
            f"  step {step}: the update is the task's gradient: "
            f"{torch.allclose(w.grad, own)}, extra {leak:.2f}x"
        )
        opt.step()
        if not zero_grad_first:
            opt.zero_grad()

        # Later: train the probe on what the hook stored.
        logits = probe(activations["hidden"])
        probe_loss = nn.functional.cross_entropy(logits, label)
        probe_loss.backward()  # runs on into the model, into w.grad
        probe_opt.step()
        probe_opt.zero_grad()


print("zero_grad() after opt.step():")
train(zero_grad_first=False)
print("zero_grad() at the top of the step:")
train(zero_grad_first=True)
