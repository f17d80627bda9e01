"""An ensemble of networks kept in lists, each model's loss of this
batch backpropagated: loss.backward(), the line the user had below.

Source: https://discuss.pytorch.org/t/loss-error-when-using-a-list-for-ensemble-of-network/120497
The user's list_of_loss, never cleared, grew by one loss per model
and batch, and list_of_loss[i].backward() backpropagated the first
batch's loss of model i again from the second batch on.
Kept: the raising program's networks, lists, data and loops;
changed: loss.backward() backpropagates the loss just computed (the
line commented out in the post), and the list keeps loss.item(), a
number for the log, not the tensor with its graph; a check that each
model's gradients equal those of a copy of it made just before this
batch's forward, on the same batch, and that every parameter of it
has one.
"""

import copy

import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cpu")
input_size, hidden_size, num_classes = 8, 4, 3
num_epochs, learning_rate = 1, 1e-2


class TestNet(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


train_loader = [
    (torch.randn(4, 2, 4), torch.randint(0, num_classes, (4,)))
    for _ in range(2)
]

num_model = 3

list_of_model = []
list_of_cri = []
list_of_opt = []

for _ in range(num_model):
    tem_model = TestNet(input_size, hidden_size, num_classes).to(device)
    tem_cri = nn.CrossEntropyLoss()
    list_of_model.append(tem_model)
    list_of_cri.append(tem_cri)

for i in range(num_model):
    list_of_opt.append(
        torch.optim.Adam(
            list_of_model[i].parameters(), lr=learning_rate
        )
    )

list_of_loss = []

total_step = len(train_loader)
for epoch in range(num_epochs):
    for j, (images, labels) in enumerate(train_loader):
        for i in range(num_model):
            images = images.reshape(-1, input_size).to(device)
            labels = labels.to(device)
            # reference: a copy of model i as it is now
            ref = copy.deepcopy(list_of_model[i])

            output = list_of_model[i](images)
            loss = list_of_cri[i](output, labels)
            list_of_loss.append(loss.item())

            list_of_opt[i].zero_grad()
            loss.backward()

            ref_loss = list_of_cri[i](ref(images), labels)
            ref_grads = torch.autograd.grad(
                ref_loss, list(ref.parameters())
            )
            same = all(
                p.grad is not None and torch.allclose(p.grad, r)
                for p, r in zip(
                    list_of_model[i].parameters(), ref_grads
                )
            )
            list_of_opt[i].step()

            print(
                f"Model {i}, Epoch [{epoch + 1}/{num_epochs}], "
                f"Step [{j + 1}/{total_step}], "
                f"Loss: {loss.item():.4f}, "
                f"grads = this batch's: {same}"
            )
