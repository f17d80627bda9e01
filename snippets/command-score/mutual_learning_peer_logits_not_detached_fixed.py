# https://github.com/chxy95/Deep-Mutual-Learning/issues/5
# A faithful reduction of Deep-Mutual-Learning's Trainer (trainer.py:
# __init__, train_one_epoch) as the user reproduced it, with the peer's
# logits passed to the KL term without Variable()/detach (Variable(t)
# detaches in torch >= 0.4, the user's version did not); resnet32 became
# a tiny conv net, CIFAR one fixed random loader,
# tqdm/tensorboard/AverageMeter dropped.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


def resnet32(num_classes=10):  # stand-in for resnet.resnet32
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, num_classes),
    )


class Config:
    num_classes = 10
    init_lr = 0.1
    momentum = 0.9
    weight_decay = 5e-4
    nesterov = True
    gamma = 0.1
    model_num = 2


class Trainer:
    def __init__(self, config, train_loader):
        self.train_loader = train_loader
        self.num_train = sum(len(x) for x, _ in train_loader)
        self.lr = config.init_lr
        self.momentum = config.momentum
        self.weight_decay = config.weight_decay
        self.nesterov = config.nesterov
        self.gamma = config.gamma
        self.model_num = config.model_num
        self.models = []
        self.optimizers = []
        self.schedulers = []

        self.loss_kl = nn.KLDivLoss(reduction="batchmean")
        self.loss_ce = nn.CrossEntropyLoss()

        for i in range(self.model_num):
            model = resnet32()
            self.models.append(model)
            optimizer = optim.SGD(
                model.parameters(),
                lr=self.lr,
                momentum=self.momentum,
                weight_decay=self.weight_decay,
                nesterov=self.nesterov,
            )
            self.optimizers.append(optimizer)
            scheduler = optim.lr_scheduler.StepLR(
                self.optimizers[i],
                step_size=60,
                gamma=self.gamma,
                last_epoch=-1,
            )
            self.schedulers.append(scheduler)

        print(
            "[*] Number of parameters of one model: {:,}".format(
                sum(
                    [
                        p.data.nelement()
                        for p in self.models[0].parameters()
                    ]
                )
            )
        )

    def train_one_epoch(self, epoch):
        losses = [[] for _ in range(self.model_num)]
        self.grad_norms = [0.0] * self.model_num
        for i in range(self.model_num):
            self.models[i].train()

        for i, (images, labels) in enumerate(self.train_loader):
            # forward pass
            outputs = []
            for model in self.models:
                outputs.append(model(images))
            for i in range(self.model_num):
                ce_loss = self.loss_ce(outputs[i], labels)
                kl_loss = 0
                for j in range(self.model_num):
                    if i != j:
                        kl_loss += self.loss_kl(
                            F.log_softmax(outputs[i], dim=1),
                            F.softmax(outputs[j].detach(), dim=1),
                        )  # the fix: the peer's prediction is a target
                loss = ce_loss + kl_loss / (self.model_num - 1)
                losses[i].append(loss.item())

                # compute gradients and update SGD
                self.optimizers[i].zero_grad()
                loss.backward()
                self.grad_norms[i] = (
                    torch.cat(
                        [
                            p.grad.flatten()
                            for p in self.models[i].parameters()
                        ]
                    )
                    .norm()
                    .item()
                )
                self.optimizers[i].step()
        return losses


train_loader = [
    (torch.randn(16, 3, 8, 8), torch.randint(0, 10, (16,)))
    for _ in range(4)
]
trainer = Trainer(Config(), train_loader)
print(f"[*] Train on {trainer.num_train} samples")
for epoch in range(2):
    train_losses = trainer.train_one_epoch(epoch)
    for i in range(trainer.model_num):
        print(
            f"epoch {epoch + 1} model_{i + 1:d}: train loss: "
            f"{sum(train_losses[i]) / len(train_losses[i]):.3f} - last "
            f"grad norm: {trainer.grad_norms[i]:.3f}"
        )
