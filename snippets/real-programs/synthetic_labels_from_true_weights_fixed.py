# https://github.com/zhangyu2234/Deep-learning-by-hand/blob/main/Chapter%201-Let%E2%80%99s%20start%20with%20the%20simplest%20full%20connection/1.3%20Problems%20I%20encountered.ipynb
import torch

torch.manual_seed(0)
# Randomly generate training samples and training labels
num_samples, num_features = 40, 2
X = torch.randn(num_samples, num_features)
# The true weights only make the labels: nothing trains them, so
# they need no graph, and neither do the labels made from them.
true_W = torch.randn(num_features, 1)
true_b = torch.randn(1)
Y = torch.mm(X, true_W) + true_b


def fc(x, w, b):
    return torch.relu(torch.mm(x, w) + b)


def loss(y_hat, y):
    return torch.mean((y_hat.reshape(y.shape) - y) ** 2 / 2)


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


W = torch.normal(0, 0.01, size=(num_features, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
batch_size, lr = 10, 3.0

for epoch in range(2):
    losses = []
    for start in range(0, num_samples, batch_size):
        x = X[start : start + batch_size]
        y = Y[start : start + batch_size]
        batch_loss = loss(fc(x, W, b), y)
        losses.append(f"{batch_loss:.4f}")
        batch_loss.backward()
        got_grad = {
            name: p.grad is not None and bool(p.grad.any())
            for name, p in (("W", W), ("b", b))
        }
        sgd([W, b], lr, batch_size)
    print(f"epoch {epoch}: batch losses {', '.join(losses)}")
print(f"non-zero grad in the last step: {got_grad}")
print(f"Y has a graph: {Y.requires_grad}")
print(
    f"Y equals a fresh X @ true_W + true_b: "
    f"{torch.equal(Y, torch.mm(X, true_W) + true_b)}"
)
