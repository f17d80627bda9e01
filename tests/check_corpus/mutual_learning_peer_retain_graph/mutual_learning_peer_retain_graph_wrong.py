# Deep Mutual Learning (chxy95/Deep-Mutual-Learning trainer.py): two
# peers, each trained on cross-entropy plus KL to the other's output.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def make_model():
    return nn.Sequential(
        nn.Flatten(), nn.Linear(48, 32), nn.ReLU(), nn.Linear(32, 10)
    )


models = [make_model() for _ in range(2)]
optimizers = [
    torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    for m in models
]
loss_kl = nn.KLDivLoss(reduction="batchmean")
train_loader = [
    (torch.randn(16, 3, 4, 4), torch.randint(0, 10, (16,)))
    for _ in range(4)
]

for epoch in range(2):
    for images, labels in train_loader:
        outputs = [model(images) for model in models]
        for i in range(2):
            j = 1 - i
            ce_loss = F.cross_entropy(outputs[i], labels)
            kl_loss = loss_kl(
                F.log_softmax(outputs[i], dim=1),
                F.softmax(outputs[j], dim=1),
            )
            loss = ce_loss + kl_loss
            optimizers[i].zero_grad()
            loss.backward(retain_graph=True)
            optimizers[i].step()
    print(f"epoch {epoch + 1}: model_2 loss {loss.item():.3f}")
