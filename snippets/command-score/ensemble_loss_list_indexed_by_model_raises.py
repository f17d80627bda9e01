"""An ensemble of networks kept in lists, each batch's loss appended
to a list that is never cleared and backpropagated as
list_of_loss[i].

Source: https://discuss.pytorch.org/t/loss-error-when-using-a-list-for-ensemble-of-network/120497
The user, new to PyTorch, trains an ensemble of three two-layer
networks, each with its own criterion and Adam optimizer in lists,
and gets this error at list_of_loss[i].backward() ("The network has
just 2 fc layers"). list_of_loss is made once before the loops and
grows by one loss per model and batch, so from the second batch on
list_of_loss[i] is the first batch's loss of model i, whose graph
its own backward freed; the line commented out below it,
loss.backward(), backpropagates the loss just computed.
Kept: the code as posted (TestNet with two fc layers, the three
lists filled in two loops, list_of_loss = [] before the epoch loop,
the loops over epochs, batches and models, images.reshape, the
forward, the criterion, list_of_loss.append(loss), zero_grad,
list_of_loss[i].backward() with loss.backward() commented out,
step, the progress print); changed: MNIST became two batches of 4
random 8-feature inputs in 3 classes, hidden_size 4, one epoch, the
print at every batch, seeded, CPU.
"""

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

            output = list_of_model[i](images)
            loss = list_of_cri[i](output, labels)
            list_of_loss.append(loss)

            list_of_opt[i].zero_grad()
            list_of_loss[i].backward()
            # loss.backward()
            list_of_opt[i].step()

            print(
                f"Model {i}, Epoch [{epoch + 1}/{num_epochs}], "
                f"Step [{j + 1}/{total_step}], "
                f"Loss: {loss.item():.4f}"
            )
