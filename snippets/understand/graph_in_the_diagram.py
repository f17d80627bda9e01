import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
loss = (x.exp() * w).sum()

total = loss.grad_fn  # SumBackward0
mul = total.next_functions[0][0]  # MulBackward0
exp = mul.next_functions[0][0]  # ExpBackward0
saved_tensors = {
    "MulBackward0": lambda: [mul._saved_self, mul._saved_other],
    "ExpBackward0": lambda: [exp._saved_result],
}


def show(when):
    print(when)
    print(f"  SumBackward0: saves only {total._saved_self_sym_sizes}")
    for name, read in saved_tensors.items():
        try:
            print(f"  {name}: saves {len(read())} tensor(s)")
        except RuntimeError:  # the error this site is about
            print(f"  {name}: freed")


show("after the forward pass:")
loss.backward()
show("after backward():")
