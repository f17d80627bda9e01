import torch
from freed_graph_report import report_freed
from torch import nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
rnn = nn.RNN(input_size=3, hidden_size=5, batch_first=True)
head = nn.Linear(5, 1)
params = [*rnn.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)

h = torch.zeros(1, 4, 5)
for batch in range(2):
    x, target = torch.randn(4, 6, 3), torch.randn(4, 1)
    out, h = rnn(x, h)  # h comes back attached to this batch's graph
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    print(f"batch {batch}:")
    report_freed(loss)
    opt.zero_grad()
    loss.backward()
    opt.step()
