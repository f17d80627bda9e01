"""https://github.com/kornia/kornia/issues/673

kornia 0.9.0. The user wanted to learn the strength of a ColorJitter
augmentation: its factors are entries of an nn.Parameter, trained by
the classifier's loss together with the classifier.
"""

import kornia.augmentation as K
import torch
from torch import nn


class MyAug(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.parameters_aug = nn.Parameter(
            torch.tensor([0.1, 0.1, 0.1, 0, 0.1]), requires_grad=True
        )
        self.jit = K.ColorJitter(
            self.parameters_aug[0],
            self.parameters_aug[1],
            self.parameters_aug[2],
            self.parameters_aug[3],
            same_on_batch=True,
        )

    def forward(self, input):
        input = self.jit(input)
        return input


torch.manual_seed(0)
cnn = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(144, 2))
criterion = nn.CrossEntropyLoss()
aug = MyAug()
params = list(cnn.parameters()) + list(aug.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
for step in range(3):
    images, labels = torch.rand(4, 3, 8, 8), torch.tensor([0, 1, 0, 1])
    optimizer.zero_grad()
    logits = cnn(aug(images))
    loss = criterion(logits, labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
