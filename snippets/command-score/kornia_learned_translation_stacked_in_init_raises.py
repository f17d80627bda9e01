"""A learned translation applied with kornia: the module stacks its two
translation parameters into one tensor in __init__, so every forward
reads the graph of that one stack (and scales it in place), and the
second training step's backward runs into the first step's freed
graph.

Source: https://github.com/kornia/kornia/issues/682 ("Backpropagation
through Translation"); the reporter's own answer: the only problem was
placing `translations = torch.stack([self.x_translation,
self.y_translation], 1)` in __init__() rather than in forward(), and
the in-place operations are differentiable and can stay. Kept: the
DTranslation module (the stack in __init__, a zero angle, the
translations scaled in place by the image's height and width, the
rotation centre at the image's middle, a scale of one,
get_rotation_matrix2d, the translations added in place to the matrix's
last column, warp_affine), the parameters 0.3 and -0.2 (the values in
the reporter's result's file name). Changed: kornia 0.9's
get_rotation_matrix2d takes a scale per axis, so the scale is (B, 2);
the issue does not show the loss or the loop, so the loss is the mean
square error to the image shifted by a known amount, and the loop is
plain SGD, three steps; the two parameters are kept on the module
(the reporter's fix reads them as self.x_translation and
self.y_translation), so the optimizer sees them; a 1 x 1 x 8 x 8 random
image, seeded, CPU (kornia's import takes about two seconds).
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
        self.translations = torch.stack(
            [x_translation, y_translation], 1
        )
        self.angle = torch.tensor([0.0])

    def forward(self, input):
        _, _, h, w = input.shape
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


x_translation = nn.Parameter(torch.tensor([0.3]))
y_translation = nn.Parameter(torch.tensor([-0.2]))
model = DTranslation(x_translation, y_translation)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)

image = torch.rand(1, 1, 8, 8)
target = torch.roll(image, shifts=(1, 1), dims=(2, 3))

for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(image), target)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
