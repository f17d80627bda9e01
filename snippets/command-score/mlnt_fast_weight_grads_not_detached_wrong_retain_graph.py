"""MLNT, the thread's wrong fix: retain_graph=True on each backward.

Source: https://github.com/LiJunnan1992/MLNT/issues/8
The user wanted to run MLNT's meta-learning step (train a classifier on
noisy labels, with a consistency loss between the mean teacher and the
one-step-updated student for several synthetic label perturbations)
on a PyTorch where `grad.detach_()` raised "Can't detach views
in-place", so they wrote `grad = grad.detach()` instead.
"""

import math
import random
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn

random.seed(123)
torch.manual_seed(123)


class Net(nn.Module):
    """Stands in for MLNT's ResNet-50: forward(x, weights, get_feat)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Linear(8, 16)
        self.fc = nn.Linear(16, 14)

    def forward(self, x, weights=None, get_feat=None):
        if weights is None:
            feat = F.relu(self.conv1(x))
            out = self.fc(feat)
            if get_feat:
                return out, feat
            return out
        x = F.relu(
            F.linear(x, weights["conv1.weight"], weights["conv1.bias"])
        )
        return F.linear(x, weights["fc.weight"], weights["fc.bias"])


class Args:
    lr = 0.0008
    meta_lr = 0.02
    num_fast = 3  # 10 in the paper's runs
    perturb_ratio = 0.5
    start_iter = 0  # 500: the meta step starts after start_iter
    mid_iter = 4
    alpha = 1
    eps = 0.99


args = Args()
net = Net()
tch_net = Net()
pretrain_net = Net()
pretrain_net.eval()
for param in tch_net.parameters():
    param.requires_grad = False
for param in pretrain_net.parameters():
    param.requires_grad = False
criterion = nn.CrossEntropyLoss()
consistent_criterion = nn.KLDivLoss(reduction="batchmean")
optimizer = torch.optim.SGD(
    net.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-3
)
train_loader = [
    (torch.randn(32, 8), torch.randint(0, 14, (32,))) for _ in range(3)
]
init = True
epoch = 1

for batch_idx, (inputs, targets) in enumerate(train_loader):
    optimizer.zero_grad()
    outputs = net(inputs)  # Forward Propagation
    class_loss = criterion(outputs, targets)  # Loss
    class_loss.backward(retain_graph=True)

    if batch_idx > args.start_iter or epoch > 1:
        if batch_idx > args.mid_iter or epoch > 1:
            args.eps = 0.999
            alpha = args.alpha
        else:
            u = (batch_idx - args.start_iter) / (
                args.mid_iter - args.start_iter
            )
            alpha = args.alpha * math.exp(-5 * (1 - u) ** 2)

        if init:
            init = False
            for param, param_tch in zip(
                net.parameters(), tch_net.parameters()
            ):
                param_tch.data.copy_(param.data)
        else:
            for param, param_tch in zip(
                net.parameters(), tch_net.parameters()
            ):
                param_tch.data.mul_(args.eps).add_(
                    (1 - args.eps) * param.data
                )

        _, feats = pretrain_net(inputs, get_feat=True)
        tch_outputs = tch_net(inputs, get_feat=False)
        p_tch = F.softmax(tch_outputs, dim=1)
        p_tch.detach_()

        for i in range(args.num_fast):
            targets_fast = targets.clone()
            randidx = torch.randperm(targets.size(0))
            for n in range(int(targets.size(0) * args.perturb_ratio)):
                num_neighbor = 10
                idx = randidx[n]
                feat = feats[idx]
                dist = torch.sum((feat - feats) ** 2, dim=1)
                _, neighbor = torch.topk(
                    dist.data, num_neighbor + 1, largest=False
                )
                targets_fast[idx] = targets[
                    neighbor[random.randint(1, num_neighbor)]
                ]

            fast_loss = criterion(outputs, targets_fast)

            grads = torch.autograd.grad(
                fast_loss,
                net.parameters(),
                create_graph=True,
                retain_graph=True,
                only_inputs=True,
            )
            for grad in grads:
                grad = grad.detach()  # was grad.detach_()
                grad.requires_grad = False

            fast_weights = OrderedDict(
                (name, param - args.meta_lr * grad)
                for ((name, param), grad) in zip(
                    net.named_parameters(), grads
                )
            )

            fast_out = net.forward(inputs, fast_weights)

            logp_fast = F.log_softmax(fast_out, dim=1)
            consistent_loss = consistent_criterion(logp_fast, p_tch)
            consistent_loss = consistent_loss * alpha / args.num_fast
            # First order: the gradient reaching fc.weight should be the
            # gradient with respect to its fast weight.
            wanted = torch.autograd.grad(
                consistent_loss,
                fast_weights["fc.weight"],
                retain_graph=True,
            )[0]
            got = torch.autograd.grad(
                consistent_loss, net.fc.weight, retain_graph=True
            )[0]
            consistent_loss.backward(retain_graph=True)
            first_order = torch.allclose(got, wanted, rtol=1e-3, atol=0)
            off = ((got - wanted).norm() / wanted.norm()).item()
            print(
                f"batch {batch_idx} noise {i}: fc.weight gradient "
                f"is the first-order one: {first_order}, "
                f"off by over 0.1%: {off > 1e-3}"
            )

    optimizer.step()  # Optimizer update
    print(f"batch {batch_idx}: class_loss {class_loss.item():.3f}")
