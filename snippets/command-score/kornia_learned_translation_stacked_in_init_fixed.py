"""The learned translation of kornia#682 as the reporter fixed it: the
two translation parameters are stacked in forward(), so each step's
forward builds its matrix from the parameters as they are, and each
backward runs through that step's graph only. The in-place scalings
stay, as the reporter found they can: they now scale that step's own
stack.

Source: https://github.com/kornia/kornia/issues/682 (the reporter:
"the only problem was placing translations = torch.stack(...) at the
__init__() rather than in the forward()"). The rest is the raising
program. The check: each step's gradients equal those of the loss made
again from scratch, with the affine matrix written out from the
parameters' current values (rotation 0, scale 1: the identity with the
translation in pixels in its last column), and both parameters get a
nonzero gradient.
"""

import kornia
import torch
from torch import nn

torch.manual_seed(0)


class DTranslation(nn.Module):
    def __init__(self, x_translation, y_translation):
        super().__init__()
        self.x_translation = x_translation
        self.y_translation = y_translation
        self.angle = torch.tensor([0.0])

    def forward(self, input):
        _, _, h, w = input.shape
        # the fix: the stack is made here, at every forward
        self.translations = torch.stack(
            [self.x_translation, self.y_translation], 1
        )
        if self.angle.shape[0] != input.shape[0]:
            angle = self.angle.repeat(input.shape[0])
        else:
            angle = self.angle

        if self.translations.shape[0] != input.shape[0]:
            translations = self.translations.repeat([input.shape[0], 1])
        else:
            translations = self.translations

        translations[:, 0] *= h
        translations[:, 1] *= w

        # define the rotation center
        center = torch.ones(2)
        center[..., 0] = input.shape[3] / 2  # x
        center[..., 1] = input.shape[2] / 2  # y
        center = center.repeat(input.shape[0], 1)

        # define the scale factor
        scale = torch.ones(input.shape[0], 2)

        # compute the transformation matrix
        M = kornia.geometry.transform.get_rotation_matrix2d(
            center, -angle, scale
        )

        # Translate
        M[..., 2] += translations  # tx/ty

        # apply the transformation to original image
        return kornia.geometry.transform.warp_affine(
            input, M, dsize=(h, w)
        )


def fresh_grads(x_value, y_value, image, target):
    # the loss made again from scratch: new leaves with the parameters'
    # values, the matrix written out, kornia's warp_affine
    x = x_value.detach().clone().requires_grad_()
    y = y_value.detach().clone().requires_grad_()
    _, _, h, w = image.shape
    row_x = torch.cat([torch.ones(1), torch.zeros(1), x * h])
    row_y = torch.cat([torch.zeros(1), torch.ones(1), y * w])
    M = torch.stack([row_x, row_y]).unsqueeze(0)
    out = kornia.geometry.transform.warp_affine(image, M, dsize=(h, w))
    loss = nn.functional.mse_loss(out, target)
    return torch.autograd.grad(loss, [x, y])


x_translation = nn.Parameter(torch.tensor([0.3]))
y_translation = nn.Parameter(torch.tensor([-0.2]))
model = DTranslation(x_translation, y_translation)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)

image = torch.rand(1, 1, 8, 8)
target = torch.roll(image, shifts=(1, 1), dims=(2, 3))

for step in range(3):
    ref = fresh_grads(x_translation, y_translation, image, target)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(image), target)
    loss.backward()
    grads = (x_translation.grad, y_translation.grad)
    same = all(
        torch.allclose(g, r, atol=1e-7) for g, r in zip(grads, ref)
    )
    trained = all(g.abs().item() > 0 for g in grads)
    shift = model.translations.detach()[0].tolist()
    print(
        f"step {step}: loss {loss.item():.4f}, translation "
        f"({shift[0]:.3f}, {shift[1]:.3f}) px, grads = the loss made "
        f"again from scratch: {same}, both parameters trained: "
        f"{trained}"
    )
    optimizer.step()
