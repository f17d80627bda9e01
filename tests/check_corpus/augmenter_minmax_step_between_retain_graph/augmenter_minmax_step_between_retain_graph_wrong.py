# source: written blind
# Learned adversarial data augmentation: an augmentation network produces a
# bounded per-sample perturbation (scale + shift + noise) of the inputs; the
# classifier minimises cross-entropy on the augmented batch while the
# augmenter maximises the SAME loss (minus a small penalty on its magnitude).
# The author intended both players' gradients to come from this batch's one
# forward pass, each player stepping its own optimizer.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Augmenter(nn.Module):
    def __init__(self, dim, noise_dim=4, eps=0.5):
        super().__init__()
        self.eps = eps
        self.noise_dim = noise_dim
        self.net = nn.Sequential(nn.Linear(dim + noise_dim, 32), nn.ReLU(), nn.Linear(32, 2 * dim))

    def forward(self, x):
        z = torch.randn(x.size(0), self.noise_dim)
        log_scale, shift = self.net(torch.cat([x, z], 1)).chunk(2, dim=1)
        log_scale = self.eps * torch.tanh(log_scale)
        shift = self.eps * torch.tanh(shift)
        return x * log_scale.exp() + shift, (log_scale ** 2 + shift ** 2).mean()


class Classifier(nn.Module):
    def __init__(self, dim, n_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.net(x)


def make_data(gen, n=512, dim=8, n_classes=3):
    means = torch.randn(n_classes, dim, generator=gen) * 1.5
    y = torch.randint(0, n_classes, (n,), generator=gen)
    x = means[y] + torch.randn(n, dim, generator=gen)
    return x, y


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    x_all, y_all = make_data(gen)
    aug = Augmenter(8)
    clf = Classifier(8, 3)
    opt_clf = torch.optim.Adam(clf.parameters(), lr=2e-3)
    opt_aug = torch.optim.Adam(aug.parameters(), lr=1e-3)
    reg = 1.0
    for epoch in range(3):
        perm = torch.randperm(x_all.size(0), generator=gen)
        for i in range(0, x_all.size(0), 128):
            xb, yb = x_all[perm[i:i + 128]], y_all[perm[i:i + 128]]
            x_aug, magnitude = aug(xb)
            loss = F.cross_entropy(clf(x_aug), yb)

            opt_clf.zero_grad()
            loss.backward(retain_graph=True)
            opt_clf.step()

            opt_aug.zero_grad()
            (-loss + reg * magnitude).backward()
            opt_aug.step()
        with torch.no_grad():
            acc = (clf(x_all).argmax(1) == y_all).float().mean()
        print(f"epoch {epoch} aug-batch loss {loss.item():.4f} magnitude {magnitude.item():.4f} clean acc {acc:.3f}")


if __name__ == "__main__":
    main()
