import torch

x = torch.tensor(1.0, requires_grad=True)
h = x.exp()
y = h**2

# Asking only for h's gradient still runs h's own node, and frees it.
y.backward(inputs=[h])
print(f"h.grad = {h.grad.item():.4f}")

h.backward()  # ExpBackward0 ran above, so its saved result is gone
