# https://github.com/xiangking/ark-nlp/issues/46
# A faithful reduction of ark-nlp's SequenceClassificationTask (fit,
# _get_train_loss, _on_backward) and ark_nlp.factory.utils.attack.PGD,
# with the user's _on_backward override.
import torch
from torch import nn

torch.manual_seed(0)


class PGD:
    # ark_nlp/factory/utils/attack.py
    def __init__(self, module):
        self.module = module
        self.emb_backup = {}
        self.grad_backup = {}

    def attack(
        self,
        epsilon=1.0,
        alpha=0.3,
        emb_name="emb.",
        is_first_attack=False,
    ):
        for name, param in self.module.named_parameters():
            if param.requires_grad and emb_name in name:
                if is_first_attack:
                    self.emb_backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0 and not torch.isnan(norm):
                    r_at = alpha * param.grad / norm
                    param.data.add_(r_at)
                    param.data = self.project(name, param.data, epsilon)

    def restore(self, emb_name="emb."):
        for name, param in self.module.named_parameters():
            if param.requires_grad and emb_name in name:
                assert name in self.emb_backup
                param.data = self.emb_backup[name]
        self.emb_backup = {}

    def project(self, param_name, param_data, epsilon):
        r = param_data - self.emb_backup[param_name]
        if torch.norm(r) > epsilon:
            r = epsilon * r / torch.norm(r)
        return self.emb_backup[param_name] + r

    def backup_grad(self):
        for name, param in self.module.named_parameters():
            if param.requires_grad and param.grad is not None:
                self.grad_backup[name] = param.grad.clone()

    def restore_grad(self):
        for name, param in self.module.named_parameters():
            if param.requires_grad and param.grad is not None:
                param.grad = self.grad_backup[name]


class TextClassifier(nn.Module):
    def __init__(self, vocab=20, dim=8, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.fc = nn.Linear(dim, classes)

    def forward(self, input_ids, **kwargs):
        return self.fc(torch.tanh(self.emb(input_ids)).mean(1))


class SequenceClassificationTask:
    def __init__(self, module, optimizer, K=3):
        self.module = module
        self.optimizer = optimizer
        self.loss_function = nn.CrossEntropyLoss()
        self.pgd = PGD(module)
        self.K = K

    def fit(self, train_data, epochs=1, gradient_accumulation_steps=1):
        for epoch in range(epochs):
            for step, inputs in enumerate(train_data):
                # forward
                outputs = self.module(**inputs)
                # 计算损失
                logits, loss = self._get_train_loss(inputs, outputs)
                print(
                    f"epoch {epoch} step {step}: loss {loss.item():.3f}"
                )
                # loss backword
                loss = self._on_backward(
                    inputs,
                    outputs,
                    logits,
                    loss,
                    gradient_accumulation_steps=(
                        gradient_accumulation_steps
                    ),
                )
                if (step + 1) % gradient_accumulation_steps == 0:
                    self._on_optimize()

    def _get_train_loss(self, inputs, outputs, **kwargs):
        logits = outputs
        loss = self._compute_loss(inputs, logits, **kwargs)
        return logits, loss

    def _compute_loss(self, inputs, logits, **kwargs):
        return self.loss_function(logits, inputs["label_ids"])

    # the user's override, as posted in the issue
    def _on_backward(
        self,
        inputs,
        outputs,
        logits,
        loss,
        gradient_accumulation_steps=1,
        **kwargs,
    ):
        if gradient_accumulation_steps > 1:
            loss = loss / gradient_accumulation_steps

        loss.backward()
        self.pgd.backup_grad()
        # 对抗训练
        for t in range(self.K):
            self.pgd.attack(is_first_attack=(t == 0))
            if t != self.K - 1:
                self.module.zero_grad()
            else:
                self.pgd.restore_grad()
            logits = self.module(**inputs)
            logits, loss_adv = self._get_train_loss(
                inputs, outputs, **kwargs
            )
            if gradient_accumulation_steps > 1:
                loss_adv = loss_adv / gradient_accumulation_steps
            loss_adv.backward()
        self.pgd.restore()
        return loss

    def _on_optimize(self):
        self.optimizer.step()
        self.optimizer.zero_grad()


module = TextClassifier()
optimizer = torch.optim.SGD(module.parameters(), lr=0.2)
train_data = [
    {
        "input_ids": torch.randint(0, 20, (4, 6)),
        "label_ids": torch.randint(0, 3, (4,)),
    }
    for _ in range(3)
]
task = SequenceClassificationTask(module, optimizer)
task.fit(train_data, epochs=2)
