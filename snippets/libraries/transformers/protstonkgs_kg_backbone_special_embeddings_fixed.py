"""Source: https://github.com/huggingface/transformers/issues/13673

Library: transformers 5.25.0, run unmodified. ProtSTonKGs as the
reporter's repository had it on 2021-09-20 (stonkgs, commit 0b8971a),
reduced: tiny configs built here instead of pre-trained BioBERT,
ProtBERT and BigBird checkpoints, a random table for the node2vec KG
embeddings, a tuple instead of the output class, no gradient
checkpointing. What the user wanted: pre-train ProtSTonKGs (text, KG
random walks and protein sequences in one BigBird) with masked-token
losses under the Trainer, the two BERT backbones frozen. The fix, as
the repository made it in its next commit to the model (b56b2a3):
compute the special tokens' embeddings under torch.no_grad().
"""

import tempfile

import torch
from torch import nn
from transformers import (
    BertConfig,
    BertModel,
    BigBirdConfig,
    BigBirdForPreTraining,
    PrinterCallback,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)
from transformers.models.big_bird.modeling_big_bird import (
    BigBirdLMPredictionHead,
)
from transformers.utils import logging

logging.set_verbosity_error()
torch.manual_seed(0)
SEP_ID, MASK_ID, UNK_ID = 66, 67, 100  # BigBird's tokenizer's ids


def tiny_bert(vocab, hidden):  # stands in for BioBERT / ProtBERT
    return BertConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
    )


class ProtSTonKGsPELMPredictionHead(BigBirdLMPredictionHead):
    def __init__(self, config, kg_start_idx, prot_start_idx):
        super().__init__(config)
        self.kg_start_idx = kg_start_idx
        self.prot_start_idx = prot_start_idx
        hidden = config.hidden_size
        self.text_decoder = nn.Linear(hidden, config.vocab_size)
        self.entity_decoder = nn.Linear(hidden, config.kg_vocab_size)
        self.prot_decoder = nn.Linear(hidden, config.prot_vocab_size)

    def forward(self, hidden_states):
        hidden_states = self.transform(hidden_states)
        kg, prot = self.kg_start_idx, self.prot_start_idx
        return (
            self.text_decoder(hidden_states[:, :kg]),
            self.entity_decoder(hidden_states[:, kg:prot]),
            self.prot_decoder(hidden_states[:, prot:]),
        )


class ProtSTonKGsForPreTraining(BigBirdForPreTraining):
    def __init__(
        self,
        config,
        kg_embedding_dict,
        prot_start_idx=10,
        prot_vocab_size=30,
        kg_start_idx=6,
    ):
        config.update({"kg_vocab_size": len(kg_embedding_dict)})
        config.update({"prot_vocab_size": prot_vocab_size})
        super().__init__(config)
        self.lm_backbone = BertModel(tiny_bert(128, 16))
        self.prot_backbone = BertModel(tiny_bert(prot_vocab_size, 12))
        self.prot_start_idx = prot_start_idx
        self.sep_id, self.mask_id, self.unk_id = SEP_ID, MASK_ID, UNK_ID

        numeric_indices = list(range(len(kg_embedding_dict) + 3))
        for special_token_id in [
            self.sep_id,
            self.mask_id,
            self.unk_id,
        ]:
            numeric_indices.remove(special_token_id)
        self.kg_idx_to_name = {
            i: key for i, key in zip(numeric_indices, kg_embedding_dict)
        }
        self.kg_backbone = {
            i: torch.tensor(kg_embedding_dict[self.kg_idx_to_name[i]])
            for i in self.kg_idx_to_name
        }
        self.kg_start_idx = kg_start_idx
        with torch.no_grad():
            for special_token_id in [
                self.sep_id,
                self.mask_id,
                self.unk_id,
            ]:
                self.kg_backbone[special_token_id] = self.lm_backbone(
                    torch.tensor([[special_token_id]]),
                )[0][0][0]

        self.cls.predictions = ProtSTonKGsPELMPredictionHead(
            config,
            kg_start_idx=kg_start_idx,
            prot_start_idx=prot_start_idx,
        )
        for backbone in [self.lm_backbone, self.prot_backbone]:
            for param in backbone.parameters():
                param.requires_grad = False
        self.prot_to_lm_hidden_linear = nn.Linear(
            self.prot_backbone.config.hidden_size,
            self.lm_backbone.config.hidden_size,
        )

    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        masked_lm_labels=None,
        ent_masked_lm_labels=None,
        prot_masked_lm_labels=None,
    ):
        third = self.kg_start_idx // 3
        text_embeddings = torch.cat(
            [
                self.lm_backbone(
                    input_ids[:, i * third : (i + 1) * third]
                )[0]
                for i in range(3)
            ],
            dim=1,
        )
        ent_embeddings = torch.stack(
            [
                torch.stack([self.kg_backbone[i.item()] for i in j])
                for j in input_ids[
                    :, self.kg_start_idx : self.prot_start_idx
                ]
            ],
        )
        prot_embeddings_original_dim = self.prot_backbone(
            input_ids[:, self.prot_start_idx :]
        )[0]
        prot_embeddings = self.prot_to_lm_hidden_linear(
            prot_embeddings_original_dim
        )
        inputs_embeds = torch.cat(
            [text_embeddings, ent_embeddings, prot_embeddings], dim=1
        ).type(torch.FloatTensor)
        outputs = self.bert(
            inputs_embeds=inputs_embeds,
            attention_mask=attention_mask,
            return_dict=True,
        )
        sequence_output, pooled_output = outputs[:2]
        prediction_scores, _ = self.cls(sequence_output, pooled_output)
        tokens, entities, prots = prediction_scores

        loss_fct = nn.CrossEntropyLoss()
        masked_lm_loss = loss_fct(
            tokens.reshape(-1, self.config.vocab_size),
            masked_lm_labels.view(-1),
        )
        ent_masked_lm_loss = loss_fct(
            entities.reshape(-1, self.config.kg_vocab_size),
            ent_masked_lm_labels.view(-1),
        )
        prot_masked_lm_loss = loss_fct(
            prots.reshape(-1, self.config.prot_vocab_size),
            prot_masked_lm_labels.view(-1),
        )
        total_loss = (
            masked_lm_loss + ent_masked_lm_loss + prot_masked_lm_loss
        )
        print(f"loss {total_loss.item():.3f}")
        return (total_loss, *prediction_scores)


class ShowGradients(TrainerCallback):
    def on_pre_optimizer_step(self, args, state, control, **kwargs):
        model = kwargs["model"]
        mask = model.kg_backbone[MASK_ID]
        trained = [
            model.bert.encoder.layer[0].attention.self.query.weight,
            model.prot_to_lm_hidden_linear.weight,
            model.cls.predictions.entity_decoder.weight,
        ]
        nonzero = all(bool(p.grad.abs().sum() > 0) for p in trained)
        frozen = [p.grad for p in model.lm_backbone.parameters()]
        print(
            f"  [MASK] entity embedding has a graph: "
            f"{mask.grad_fn is not None}"
        )
        print(
            f"  BigBird, protein projection, entity decoder "
            f"grads nonzero: {nonzero}; frozen LM grads: "
            f"{sum(g is not None for g in frozen)}"
        )


def example(kg_indices):
    text = torch.randint(0, 60, (6,))
    walk = torch.tensor(kg_indices)
    prot = torch.randint(0, 30, (4,))
    ent_labels = torch.full((4,), -100)
    ent_labels[1] = int(walk[1]) % 98  # the masked entity
    walk[1] = MASK_ID  # entity masking puts [MASK] in the walk
    text_labels = torch.full((6,), -100)
    text_labels[2] = int(text[2])
    text[2] = MASK_ID
    prot_labels = torch.full((4,), -100)
    prot_labels[0] = int(prot[0])
    return {
        "input_ids": torch.cat([text, walk, prot]),
        "attention_mask": torch.ones(14, dtype=torch.long),
        "masked_lm_labels": text_labels,
        "ent_masked_lm_labels": ent_labels,
        "prot_masked_lm_labels": prot_labels,
    }


kg_embedding_dict = {
    f"HGNC:{n}": torch.randn(16).tolist() for n in range(98)
}
config = BigBirdConfig(
    vocab_size=128,
    hidden_size=16,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=32,
    attention_type="original_full",
)
model = ProtSTonKGsForPreTraining(config, kg_embedding_dict)
data = [example([3, 4, 5, 6]), example([7, 8, 9, 10])] * 3
with tempfile.TemporaryDirectory() as training_dir:
    training_args = TrainingArguments(
        output_dir=training_dir,
        per_device_train_batch_size=2,
        max_steps=3,
        learning_rate=1e-3,
        report_to=[],
        save_strategy="no",
        logging_strategy="no",
        disable_tqdm=True,
        use_cpu=True,
    )
    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=data,
        callbacks=[ShowGradients()],
    )
    trainer.remove_callback(PrinterCallback)  # its timings vary
    trainer.train()
