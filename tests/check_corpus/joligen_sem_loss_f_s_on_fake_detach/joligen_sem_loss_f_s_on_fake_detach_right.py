# joliGEN's CUT with semantics (jolibrain/joliGEN,
# models/cut_semantic_mask_model.py, March 2021): netG translates
# domain A to domain B; netf_s, a classifier trained on A's labels by
# its own optimizer, reads the translation, and loss_sem asks that
# fake_B keep real_A's class. Reduced: vectors for images, one class
# per sample, and an L1 identity term in place of PatchNCE.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, DIM, NCLS = 16, 20, 4
netG = nn.Sequential(nn.Linear(DIM, 32), nn.ReLU(), nn.Linear(32, DIM))
netD = nn.Sequential(nn.Linear(DIM, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
netf_s = nn.Sequential(nn.Linear(DIM, 32), nn.ReLU(), nn.Linear(32, NCLS))
optimizer_G = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_f_s = torch.optim.Adam(netf_s.parameters(), lr=2e-4)
protos = 2 * torch.randn(NCLS, DIM)
labels_A = torch.randint(NCLS, (4, N))
reals_A = protos[labels_A] + torch.randn(4, N, DIM)
reals_B = torch.randn(4, N, DIM) + 1.0


def gan_loss(pred, is_real):
    return F.mse_loss(pred, torch.full_like(pred, float(is_real)))



def reaches(losses, params):
    # do these losses' graphs lead to any of params? (walks grad_fn)
    ids, seen, todo = {id(p) for p in params}, set(), [lo.grad_fn for lo in losses]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if id(getattr(fn, "variable", None)) in ids:
            return True
        todo.extend(f for f, _ in fn.next_functions)
    return False


for it in range(4):
    real_A, real_B, label_A = reals_A[it], reals_B[it], labels_A[it]
    fake_B = netG(real_A)

    # update D
    optimizer_D.zero_grad()
    loss_D = 0.5 * (gan_loss(netD(fake_B.detach()), False)
                    + gan_loss(netD(real_B), True))
    loss_D.backward()
    optimizer_D.step()

    # update G: one loss_G, as compute_G_loss sums it. Its backward
    # also writes into netD and netf_s, whose own zero_grad clears it
    optimizer_G.zero_grad()
    loss_G_GAN = gan_loss(netD(fake_B), True)
    loss_idt = 10.0 * F.l1_loss(fake_B, real_A)
    pfB = F.log_softmax(netf_s(fake_B), dim=1)
    loss_sem = F.nll_loss(pfB, label_A)
    reach = reaches([loss_sem], netG.parameters())
    loss_G = loss_G_GAN + loss_idt + loss_sem
    f_s_before = [None if p.grad is None else p.grad.clone()
                  for p in netf_s.parameters()]
    loss_G.backward()
    f_s_written = all(b is None or not torch.equal(b, p.grad)
                      for b, p in zip(f_s_before, netf_s.parameters()))
    optimizer_G.step()

    # update f_s on the real source images and their labels
    optimizer_f_s.zero_grad()
    loss_f_s = F.cross_entropy(netf_s(real_A), label_A)
    loss_f_s.backward()
    optimizer_f_s.step()
    print(f"iteration {it}: loss_sem reaches netG: {reach}; "
          f"wrote grads into all of netf_s: {f_s_written} "
          "(optimizer_f_s.zero_grad() clears them)")
