import torch
from torch import nn

torch.manual_seed(0)

clf = nn.Linear(20, 5)  # softmax regression on fixed features
opt = torch.optim.SGD(clf.parameters(), lr=0.5)
x, y = torch.randn(200, 20), torch.randint(0, 5, (200,))

for epoch in range(2):
    total_loss = 0
    for i in range(0, 200, 25):
        loss = nn.functional.cross_entropy(
            clf(x[i : i + 25]), y[i : i + 25]
        )
        total_loss += loss.item()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: mean loss {total_loss / 8:.3f}")
