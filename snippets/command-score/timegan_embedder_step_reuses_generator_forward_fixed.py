# https://github.com/AlanDongMu/TimeGAN_PytorchRebuild/issues/2
# A faithful reduction of AlanDongMu/TimeGAN_PytorchRebuild's TimeGAN
# class (timegan.py: gen_batch runs every network's forward and keeps
# the results on self; train_embedder, train_supervisor,
# train_generator, train_discriminator) and run.py's three training
# phases, as they stood when the issue was filed; networks.py's GRU
# networks are kept, the stock/energy data and the metrics are reduced
# to random sequences, numpy to torch.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    """networks.py: Embedder, Recovery, Generator, Supervisor,
    Discriminator are each a GRU + Linear (+ sigmoid)."""

    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.GRU(
            input_size=input_size,
            hidden_size=hidden_size,
            num_layers=1,
            batch_first=True,
        )
        self.fc = nn.Linear(hidden_size, output_size)
        self.sigmoid = nn.Sigmoid()

    def forward(self, X):
        outputs, _ = self.rnn(X)
        return self.sigmoid(self.fc(outputs))


class Opt:
    batch_size, hidden_dim, lr, gamma, iterations, print_times = (
        8,
        4,
        1e-2,
        1,
        4,
        2,
    )


class TimeGAN:
    def __init__(self, opt, ori_data):
        self.opt = opt
        self.ori_data = ori_data
        self.no, self.seq_len, self.z_dim = ori_data.shape
        hidden = opt.hidden_dim
        self.embedder = Net(self.z_dim, hidden, hidden)
        self.recovery = Net(hidden, self.z_dim, self.z_dim)
        self.generator = Net(self.z_dim, hidden, hidden)
        self.discriminator = Net(hidden, hidden, 1)
        self.supervisor = Net(hidden, hidden, hidden)

        self.optim_embedder = torch.optim.Adam(
            self.embedder.parameters(), lr=self.opt.lr
        )
        self.optim_recovery = torch.optim.Adam(
            self.recovery.parameters(), lr=self.opt.lr
        )
        self.optim_generator = torch.optim.Adam(
            self.generator.parameters(), lr=self.opt.lr
        )
        self.optim_discriminator = torch.optim.Adam(
            self.discriminator.parameters(), lr=self.opt.lr
        )
        self.optim_supervisor = torch.optim.Adam(
            self.supervisor.parameters(), lr=self.opt.lr
        )

        self.MSELoss = torch.nn.MSELoss()
        self.BCELoss = torch.nn.BCELoss()

    def gen_batch(self):
        # Set training batch
        idx = torch.randperm(self.no)[: self.opt.batch_size]
        self.X = self.ori_data[idx]
        # Random vector generation
        self.Z = torch.rand(
            self.opt.batch_size, self.seq_len, self.z_dim
        )

    # the fix (as in the repository's "joint training correction 2.0"):
    # the forward is its own method, run again before each solver so
    # that each backward has a graph of its own, made from the current
    # weights
    def batch_forward(self):
        # total networks forward
        self.H = self.embedder(self.X)
        self.X_tilde = self.recovery(self.H)
        self.H_hat_supervise = self.supervisor(self.H)

        self.E_hat = self.generator(self.Z)
        self.H_hat = self.supervisor(self.E_hat)
        self.X_hat = self.recovery(self.H_hat)

        self.Y_real = self.discriminator(self.H)
        self.Y_fake = self.discriminator(self.H_hat)
        self.Y_fake_e = self.discriminator(self.E_hat)

    def train_embedder(self, join_train=False):
        self.embedder.train()
        self.recovery.train()
        self.optim_embedder.zero_grad()
        self.optim_recovery.zero_grad()
        self.E_loss_T0 = self.MSELoss(self.X, self.X_tilde)
        self.E_loss0 = 10 * torch.sqrt(self.E_loss_T0)
        if not join_train:
            # E0_solver
            self.E_loss0.backward()
        else:
            # E_solver
            self.G_loss_S = self.MSELoss(
                self.H[:, 1:, :], self.H_hat_supervise[:, :-1, :]
            )
            self.E_loss = self.E_loss0 + 0.1 * self.G_loss_S
            self.E_loss.backward()
        self.optim_embedder.step()
        self.optim_recovery.step()

    def train_supervisor(self):
        # GS_solver
        self.optim_generator.zero_grad()
        self.optim_supervisor.zero_grad()
        self.G_loss_S = self.MSELoss(
            self.H[:, 1:, :], self.H_hat_supervise[:, :-1, :]
        )
        self.G_loss_S.backward()
        self.optim_generator.step()
        self.optim_supervisor.step()

    def train_generator(self):
        # G_solver
        self.optim_generator.zero_grad()
        self.optim_supervisor.zero_grad()
        self.G_loss_U = self.BCELoss(
            self.Y_fake, torch.ones_like(self.Y_fake)
        )
        self.G_loss_U_e = self.BCELoss(
            self.Y_fake_e, torch.ones_like(self.Y_fake_e)
        )
        self.G_loss_V1 = torch.mean(
            torch.abs(
                torch.sqrt(torch.std(self.X_hat, [0])[1] + 1e-6)
                - torch.sqrt(torch.std(self.X, [0])[1] + 1e-6)
            )
        )
        self.G_loss_V2 = torch.mean(
            torch.abs(
                (torch.mean(self.X_hat, [0]))
                - (torch.mean(self.X, [0]))
            )
        )
        self.G_loss_V = self.G_loss_V1 + self.G_loss_V2
        self.G_loss_S = self.MSELoss(
            self.H_hat_supervise[:, :-1, :], self.H[:, 1:, :]
        )
        self.G_loss = (
            self.G_loss_U
            + self.opt.gamma * self.G_loss_U_e
            + torch.sqrt(self.G_loss_S) * 100
            + self.G_loss_V * 100
        )
        self.G_loss.backward()
        self.optim_generator.step()
        self.optim_supervisor.step()

    def train_discriminator(self):
        # D_solver
        self.optim_discriminator.zero_grad()
        self.D_loss_real = self.BCELoss(
            self.Y_real, torch.ones_like(self.Y_real)
        )
        self.D_loss_fake = self.BCELoss(
            self.Y_fake, torch.zeros_like(self.Y_fake)
        )
        self.D_loss_fake_e = self.BCELoss(
            self.Y_fake_e, torch.zeros_like(self.Y_fake_e)
        )
        self.D_loss = (
            self.D_loss_real
            + self.D_loss_fake
            + self.opt.gamma * self.D_loss_fake_e
        )
        # Train discriminator (only when the discriminator does not work
        # well)
        if self.D_loss > 0.15:
            self.D_loss.backward()
            self.optim_discriminator.step()


def check(model, old_H_hat_supervise):
    with torch.no_grad():
        fresh = model.supervisor(model.embedder(model.X))
    print(
        "supervisor moved by the generator step: "
        f"{not torch.equal(old_H_hat_supervise, fresh)}"
    )
    print(
        "H_hat_supervise for the embedder step is fresh: "
        f"{torch.equal(model.H_hat_supervise.detach(), fresh)}"
    )
    g = torch.autograd.grad(
        10 * torch.sqrt(model.MSELoss(model.X, model.X_tilde))
        + 0.1
        * model.MSELoss(
            model.H[:, 1:, :], model.H_hat_supervise[:, :-1, :]
        ),
        list(model.embedder.parameters()),
        retain_graph=True,
    )  # check only
    print(
        "E_loss grad norm on the embedder: "
        f"{torch.cat([x.flatten() for x in g]).norm().item():.3f}"
    )


def train(opt, ori_data):
    model = TimeGAN(opt, ori_data)
    per_print_num = opt.iterations / opt.print_times

    # 1. Embedding network training
    for i in range(opt.iterations):
        model.gen_batch()
        model.batch_forward()
        model.train_embedder()
        if i % per_print_num == 0:
            print(
                "step: "
                + str(i)
                + "/"
                + str(opt.iterations)
                + ", e_loss: "
                + str(round(model.E_loss_T0.item() ** 0.5, 3))
            )

    # 2. Training only with supervised loss
    for i in range(opt.iterations):
        model.gen_batch()
        model.batch_forward()
        model.train_supervisor()
        if i % per_print_num == 0:
            print(
                "step: "
                + str(i)
                + "/"
                + str(opt.iterations)
                + ", g_loss_s: "
                + str(round(model.G_loss_S.item() ** 0.5, 3))
            )

    # 3. Joint Training
    for i in range(opt.iterations):
        # Generator training (twice more than discriminator training)
        for kk in range(2):
            model.gen_batch()
            model.batch_forward()
            model.train_generator()
            old_H_hat_supervise = model.H_hat_supervise.detach()
            model.batch_forward()
            if i == 0 and kk == 0:
                check(model, old_H_hat_supervise)
            model.train_embedder(join_train=True)
        # Discriminator training
        model.gen_batch()
        model.batch_forward()
        model.train_discriminator()
        if i % per_print_num == 0:
            # The GAN losses' last digit depends on the CPU's kernels:
            # the embedder's loss is the one this fix is about.
            print(
                "step: "
                + str(i)
                + "/"
                + str(opt.iterations)
                + ", e_loss_t0: "
                + str(round(model.E_loss_T0.item() ** 0.5, 3))
            )
    return model


ori_data = torch.rand(
    32, 6, 3
)  # MinMaxScaled sequences: (Num, Len, Dim)
train(Opt(), ori_data)
