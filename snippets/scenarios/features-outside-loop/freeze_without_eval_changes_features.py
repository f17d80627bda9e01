import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        # Stands for a pretrained encoder with BatchNorm and dropout.
        self.encoder = nn.Sequential(
            nn.Linear(6, 16),
            nn.BatchNorm1d(16),
            nn.ReLU(),
            nn.Dropout(0.2),
        )
        self.head = nn.Linear(16, 1)


class FrozenEncoderClassifier(Classifier):
    def train(self, mode=True):
        super().train(mode)
        self.encoder.eval()  # model.train() must not undo the freeze
        return self


def cache_features(model_class, freeze):
    torch.manual_seed(0)
    model = model_class()
    freeze(model.encoder)
    bn = model.encoder[1]
    mean_before = bn.running_mean.clone()
    x = torch.randn(32, 6)
    features = model.encoder(x)  # cached for the head's training
    again = model.encoder(x)
    moved = not torch.equal(mean_before, bn.running_mean)
    print(f"    same features twice: {torch.equal(features, again)}")
    print(f"    running_mean moved: {moved}")
    model.train()  # as many training loops do at every epoch
    mode = model.encoder.training
    print(f"    after model.train(), encoder training: {mode}")


print("requires_grad_(False) only:")
cache_features(Classifier, lambda enc: enc.requires_grad_(False))
print("eval() and requires_grad_(False):")
cache_features(Classifier, lambda enc: enc.eval().requires_grad_(False))
print("the same, and train() keeps the encoder in eval mode:")
cache_features(
    FrozenEncoderClassifier,
    lambda enc: enc.eval().requires_grad_(False),
)
