# https://github.com/jlamprou/Infini-Attention/issues/3
# A faithful reduction of jlamprou/Infini-Attention's InfiniAttention
# (infiniAttention.py: M, z, _retrieve_from_memory, _update_memory,
# _long_term_injection) and run_clm.py's segment loop (one backward per
# segment, one optimizer step per batch); _update_memory stores M and z
# without .detach(), as in the reporter's adaptation.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class InfiniAttention(nn.Module):
    def __init__(self, hidden_size=8, num_heads=2):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

        self.beta = nn.Parameter(torch.randn(1))

        self.M = None
        self.z = None

    def forward(self, hidden_states):
        # Initialize memory and normalization term
        if self.M is None:
            self.M = torch.zeros(
                self.num_heads, self.head_dim, self.head_dim
            )
            self.z = torch.zeros(self.num_heads, self.head_dim)

        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states)
        key_states = self.k_proj(hidden_states)
        value_states = self.v_proj(hidden_states)
        query_states = query_states.view(
            bsz, q_len, self.num_heads, self.head_dim
        ).transpose(1, 2)
        key_states = key_states.view(
            bsz, q_len, self.num_heads, self.head_dim
        ).transpose(1, 2)
        value_states = value_states.view(
            bsz, q_len, self.num_heads, self.head_dim
        ).transpose(1, 2)

        memory_output = self._retrieve_from_memory(query_states)
        # Update memory with current segment's key and value states
        self._update_memory(key_states, value_states)

        attn_output = F.scaled_dot_product_attention(
            query_states, key_states, value_states, is_causal=True
        )
        combined_output = self._long_term_injection(
            attn_output, memory_output
        )

        # Prepare output for this segment
        combined_output = combined_output.transpose(1, 2).contiguous()
        combined_output = combined_output.view(
            bsz, q_len, self.hidden_size
        )
        return self.o_proj(combined_output)

    def _retrieve_from_memory(self, Q):
        # Retrieve context from compressive memory using linear
        # attention (Eq. 3)
        M_s_1 = torch.matmul(F.elu(Q) + 1, self.M)
        Z_s_1 = torch.matmul(F.elu(Q) + 1, self.z.unsqueeze(-1)) + 1e-8
        return M_s_1 / Z_s_1

    def _update_memory(self, K, V):
        updated_M = self.M + torch.matmul(
            F.elu(K).transpose(-2, -1) + 1, V
        )
        updated_z = self.z + (F.elu(K) + 1).sum(dim=-2)
        self.M = updated_M
        self.z = updated_z

    def _long_term_injection(self, A_dot, A_mem):
        beta = torch.sigmoid(self.beta)
        return beta * A_mem + (1 - beta) * A_dot


class TinyLM(nn.Module):
    def __init__(self, vocab=11, hidden=8):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.self_attn = InfiniAttention(hidden)
        self.lm_head = nn.Linear(hidden, vocab)

    def forward(self, input_ids, labels):
        h = self.embed_tokens(input_ids)
        h = h + self.self_attn(h)
        logits = self.lm_head(h)
        return F.cross_entropy(
            logits[:, :-1].reshape(-1, logits.size(-1)),
            labels[:, 1:].reshape(-1),
        )


model = TinyLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
segment_length = 4
batches = [torch.randint(0, 11, (2, 12)) for _ in range(3)]

for step, batch in enumerate(batches):
    input_ids = torch.tensor_split(
        batch,
        list(range(segment_length, batch.shape[1], segment_length)),
        dim=1,
    )
    total_segment_loss = 0
    for i in range(len(input_ids)):
        loss = model(input_ids[i], labels=input_ids[i])
        # accelerator.backward(loss): one backward per segment
        loss.backward()
        total_segment_loss += loss.detach().float()
        print(f"step {step} segment {i}: loss {loss.item():.3f}")
    optimizer.step()
    optimizer.zero_grad()
    print(
        f"step {step}: mean segment loss "
        f"{total_segment_loss.item() / len(input_ids):.3f}"
    )
