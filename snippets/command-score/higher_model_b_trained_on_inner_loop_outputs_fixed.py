"""higher's fix: model B trains on detached copies of A's outputs; the
meta-loss reads the attached ones.

Source: https://github.com/facebookresearch/higher/issues/81
The user wanted to train model B with first-order gradients inside
model A's innerloop_ctx, then use B's output in a loss that trains A
with higher-order gradients through the learner's unrolled steps.
"""

import higher
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
FEAT, CLASSES, STEPS = 6, 3, 5


class ModelA(nn.Module):
    """Makes the learner's training data: features and their target."""

    def __init__(self):
        super().__init__()
        self.net = nn.Linear(FEAT + CLASSES, FEAT)

    def forward(self, x, target):
        return self.net(torch.cat([x, target], -1)), target


def train_model_b(data, targets, epochs=3):
    """Plain first-order training of B on A's outputs."""
    model_b = nn.Linear(FEAT, CLASSES)
    opt_b = torch.optim.Adam(model_b.parameters(), lr=1e-2)
    for epoch in range(epochs):
        for x, t in zip(data, targets):
            opt_b.zero_grad()
            loss_b = F.cross_entropy(model_b(x), t.argmax(-1))
            loss_b.backward()
            opt_b.step()
        print(f"  model B epoch {epoch}: loss {loss_b.item():.3f}")
    return model_b


model_a = ModelA()
learner = nn.Linear(FEAT, CLASSES)
optim = torch.optim.SGD(learner.parameters(), lr=0.1, momentum=0.9)
meta_opt = torch.optim.Adam(model_a.parameters(), lr=1e-2)
a_input = torch.randn(STEPS, 8, FEAT)
a_target = F.one_hot(torch.randint(0, CLASSES, (STEPS, 8)), CLASSES)
val_x = torch.randn(16, FEAT)
val_y = torch.randint(0, CLASSES, (16,))

with higher.innerloop_ctx(learner, optim) as (flearner, diffopt):
    model_a_outputs, model_a_targets = [], []
    for step in range(STEPS):
        out, tgt = model_a(a_input[step], a_target[step].float())
        model_a_outputs.append(out)
        model_a_targets.append(tgt)
        loss = F.cross_entropy(flearner(out), tgt.argmax(-1))
        diffopt.step(loss)
    model_b = train_model_b(
        [out.detach() for out in model_a_outputs], model_a_targets
    )
    print(f"A's grad before the meta-loss: {model_a.net.weight.grad}")
    data = torch.cat(model_a_outputs)
    labels = torch.cat(model_a_targets).argmax(-1)
    meta_loss = F.cross_entropy(flearner(val_x), val_y)
    meta_loss = meta_loss + F.cross_entropy(model_b(data), labels)
    meta_loss.backward()
print(f"meta-loss {meta_loss.item():.3f}")
print(f"A's grad norm {model_a.net.weight.grad.norm():.4f}")
meta_opt.step()
