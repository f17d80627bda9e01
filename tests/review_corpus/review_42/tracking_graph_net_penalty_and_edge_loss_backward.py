# https://github.com/yinizhizhu/GNMOT/blob/master/Motion1/train.py
import random

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(123)
random.seed(123)

v_num = 6
u_num = 100
e_num = 1
uphi_n = 64
ephi_n = 64


class uphi(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(u_num + v_num + e_num, uphi_n),
            nn.LeakyReLU(inplace=True),
            nn.Linear(uphi_n, u_num),
        )

    def forward(self, e, v, u):
        bs = e.size()[0]
        tmp = u if bs == 1 else u.expand(bs, -1)
        x = torch.cat((e, v), dim=1)
        x = torch.cat((x, tmp), dim=1)
        return self.features(x)


class ephi(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(u_num + v_num * 2 + e_num, ephi_n),
            nn.LeakyReLU(inplace=True),
            nn.Linear(ephi_n, e_num),
        )

    def forward(self, e, v1, v2, u):
        bs = e.size()[0]
        tmp = u if u.size()[0] != 1 else u.expand(bs, -1)
        x = torch.cat((e, v1), dim=1)
        x = torch.cat((x, v2), dim=1)
        x = torch.cat((x, tmp), dim=1)
        return self.features(x)


class EdgeSet(Dataset):
    def __init__(self, m=4, n=4):
        self.m, self.n = m, n
        self.motion_cur = torch.randn(m, v_num)
        self.motion_nxt = torch.randn(n, v_num)
        self.edges = [[torch.rand(e_num) for _ in range(n)] for _ in range(m)]
        self.gts = [[torch.tensor([float(i == j)]) for j in range(n)] for i in range(m)]
        self.E = torch.stack([x for row in self.edges for x in row]).mean(0).view(1, -1)
        self.V = torch.cat((self.motion_cur, self.motion_nxt)).mean(0).view(1, -1)

    def getMotion(self, tag, index, pre_index=None):
        return self.motion_cur[index] if tag else self.motion_nxt[index]

    def __getitem__(self, index):
        vs, vr = index // self.n, index % self.n
        return self.edges[vs][vr], self.gts[vs][vr], vs, vr

    def __len__(self):
        return self.m * self.n


class GN:
    def __init__(self, lr=5e-4, batchs=8):
        self.u = torch.FloatTensor([random.random() for i in range(u_num)]).view(1, -1)
        self.Uphi = uphi()
        self.Ephi = ephi()
        self.criterion = nn.MSELoss()
        self.optimizer = optim.Adam(
            [{"params": self.Uphi.parameters()}, {"params": self.Ephi.parameters()}], lr=lr
        )
        self.train_set = EdgeSet()
        self.batchsize = batchs

    def updateNetwork(self, n_epochs=3):
        data_loader = DataLoader(dataset=self.train_set, batch_size=self.batchsize, shuffle=True)
        for epoch in range(1, n_epochs + 1):
            num, epoch_loss, arpha_loss = 0, 0.0, 0.0
            for iteration in enumerate(data_loader, 1):
                index, (e, gt, vs_index, vr_index) = iteration

                self.optimizer.zero_grad()

                u_ = self.Uphi(self.train_set.E, self.train_set.V, self.u)
                v1 = self.train_set.getMotion(1, vs_index)
                v2 = self.train_set.getMotion(0, vr_index, vs_index)
                e_ = self.Ephi(e, v1, v2, u_)

                arpha = torch.mean(torch.abs(u_))
                arpha_loss += arpha.item()
                arpha.backward()

                loss = self.criterion(e_, gt)
                epoch_loss += loss.item()
                loss.backward()

                self.optimizer.step()
                num += e.size()[0]
            print("epoch", epoch, "loss", epoch_loss / num, "arpha", arpha_loss / num)


gn = GN()
gn.updateNetwork()
