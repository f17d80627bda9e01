import torch

small = torch.tensor(1e-8)
for dtype in (torch.float16, torch.bfloat16, torch.float32):
    info = torch.finfo(dtype)
    print(
        f"{str(dtype):15} max {info.max:.4e}, "
        f"smallest normal {info.tiny:.4e}, "
        f"1e-8 -> {small.to(dtype).item():.4e}"
    )
