# https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/8
import torch
from torch import nn

vocab, d_word_vec, d_inner_hid, c_dim = 12, 6, 8, 2
maxlen, batch_size, BOS = 5, 4, 1


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_word_emb = nn.Embedding(vocab, d_word_vec)
        self.rnn = nn.LSTM(d_word_vec, d_inner_hid)
        self._enc_mu = nn.Linear(d_inner_hid, d_inner_hid)
        self._enc_log_sigma = nn.Linear(d_inner_hid, d_inner_hid)

    def _sample_latent(self, enc_hidden):
        mu = self._enc_mu(enc_hidden)
        sigma = torch.exp(self._enc_log_sigma(enc_hidden))
        self.z_mean = mu
        self.z_sigma = sigma
        return mu + sigma * torch.randn_like(sigma)

    def forward(self, src_seq, hidden):
        enc_input = self.src_word_emb(src_seq).permute(1, 0, 2)
        _, hidden = self.rnn(enc_input, hidden)
        return (self._sample_latent(hidden[0]), hidden[1])

    def init_hidden(self, n):
        return [torch.zeros(1, n, d_inner_hid)] * 2


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        d_hid = d_inner_hid + c_dim
        self.rnn = nn.LSTM(d_word_vec, d_hid)
        self.to_word_emb = nn.Sequential(
            nn.Linear(d_hid, d_word_vec), nn.ReLU()
        )
        self.linear = nn.Linear(d_word_vec, vocab)
        self.one_hot_to_word_emb = nn.Linear(vocab, d_word_vec)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, target_word, hidden):
        dec_input = self.one_hot_to_word_emb(target_word).unsqueeze(0)
        output, hidden = self.rnn(dec_input, hidden)
        output = self.linear(self.to_word_emb(output))
        pre_soft = output[0]  # low temperature trick
        output = self.softmax(pre_soft / 0.001)
        return output, hidden, pre_soft

    def init_hidden_c_for_lstm(self, n):
        return torch.zeros(1, n, d_inner_hid)


def latent_loss(z_mean, z_stddev):
    mean_sq = z_mean * z_mean
    stddev_sq = z_stddev * z_stddev
    return 0.5 * torch.mean(
        mean_sq + stddev_sq - torch.log(stddev_sq) - 1
    )


torch.manual_seed(0)
encoder, decoder = Encoder(), Generator()
vae_parameters = [*encoder.parameters(), *decoder.parameters()]
vae_opt = torch.optim.Adam(vae_parameters)
criterion = nn.CrossEntropyLoss()
x_train = torch.randint(2, vocab, (12, maxlen))
y_train = torch.randint(c_dim, (12,))


def train_vae_with_attr_loss(encoder, decoder):
    for batch, index in enumerate(range(0, len(x_train), batch_size)):
        vae_opt.zero_grad()
        vae_loss = 0
        input_data = x_train[index : index + batch_size]
        output_data = y_train[index : index + batch_size]
        n = len(input_data)
        enc_hidden = encoder(input_data, encoder.init_hidden(n))
        var_c = torch.eye(c_dim)[output_data]
        cat_hidden = (
            torch.cat([enc_hidden[0][0], var_c], dim=1).unsqueeze(0),
            torch.cat(
                [decoder.init_hidden_c_for_lstm(n)[0], var_c], dim=1
            ).unsqueeze(0),
        )
        batch_init_word = torch.zeros(batch_size, vocab)
        batch_init_word[:, BOS] = 1

        input_data = input_data.permute(1, 0)
        for index in range(maxlen - 1):
            if "next_word" in locals():
                word = next_word  # noqa: F821
            else:
                word = batch_init_word
            output, cat_hidden, pre_soft = decoder(word, cat_hidden)
            next_word = output
            correct_word = input_data[index + 1]
            vae_loss += criterion(pre_soft, correct_word)
        ll = latent_loss(encoder.z_mean, encoder.z_sigma)
        total_vae_loss = vae_loss + ll
        print(f"batch {batch}: loss {total_vae_loss.item():.4f}")
        total_vae_loss.backward(retain_graph=True)
        vae_opt.step()


train_vae_with_attr_loss(encoder, decoder)
