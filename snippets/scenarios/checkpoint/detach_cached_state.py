import torch
from memory_model import MODES, MemoryModel, train

for kwargs in MODES:
    torch.manual_seed(0)  # the same weights for every mode
    model = MemoryModel(detach_memory=True)
    if kwargs is not None:
        model.gradient_checkpointing_enable(**kwargs)
    loss = train(model)
    print(
        f"checkpointing {kwargs}: 3 steps, last loss {loss.item():.4f}"
    )
