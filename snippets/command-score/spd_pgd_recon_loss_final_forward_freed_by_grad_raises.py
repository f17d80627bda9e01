"""SPD's PGD reconstruction loss, trained on: its last forward, the one
whose loss goes into the total loss, also takes the gradient of the
adversarial sources, and that grad() frees the graph the training
step's backward then needs.

Source: https://github.com/goodfire-ai/spd/pull/252
Stochastic parameter decomposition splits each weight of a target
model into rank-one components (V, U) and learns a causal importance
ci per component; the PGD loss searches masks ci + (1 - ci) * source
with sign-gradient steps on the sources, and the reconstruction loss
at the last sources is a training loss. The merged fix: PR #239 had
refactored the PGD steps into one _pgd_fwd_bwd that returns (loss,
n_examples, grad), so "for the final forward pass that we do to
report of loss, we also call torch.autograd.grad which frees part of
the graph", needed "if the loss is used later in .backward"; the PR
takes the grad out of the last forward (only the steps take it).
Kept: pgd_masked_recon_loss_update and _pgd_fwd_bwd as at the fix's
parent (sources shared across the batch, random init, n_steps sign
steps clamped to [0, 1], the last fwd_bwd_fn() with its grad thrown
away), _interpolate_component_mask, a component layer x @ V, times
the mask, @ U, an MLP ci function on each component's inner act with
a leaky hard sigmoid, compute_total_loss's sum of coeff * loss
(faithfulness, importance minimality, PGD reconstruction) and
optimize's backward and step; changed: the target became a toy model
of superposition (5 sparse features through 2 hidden units and back,
ReLU), 3 components per layer, no all_reduce (one process), MSE
output loss, two PGD steps, three training steps, seeded, CPU.
"""

from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
n_features, n_hidden, C = 5, 2, 3


class TMS(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(n_features, n_hidden, bias=False)
        self.linear2 = nn.Linear(n_hidden, n_features)

    def forward(self, x):
        return F.relu(self.linear2(self.linear1(x)))


class LinearComponents(nn.Module):
    def __init__(self, target):
        super().__init__()
        d_out, d_in = target.weight.shape
        self.V = nn.Parameter(torch.randn(d_in, C) * 0.5)
        self.U = nn.Parameter(torch.randn(C, d_out) * 0.5)
        self.bias = target.bias  # frozen, the target's

    def get_inner_acts(self, x):
        return x @ self.V

    def forward(self, x, mask=None):
        component_acts = self.get_inner_acts(x)
        if mask is not None:
            component_acts = component_acts * mask
        out = component_acts @ self.U
        return out if self.bias is None else out + self.bias


class MLPCiFn(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(1, 4), nn.GELU(), nn.Linear(4, 1)
        )

    def forward(self, inner_acts):
        return self.layers(inner_acts.unsqueeze(-1)).squeeze(-1)


def lower_leaky(x):
    return torch.where(x > 0, x.clamp(max=1.0), 0.01 * x)


class ComponentModel(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.requires_grad_(False)
        self.target_module_paths = ["linear1", "linear2"]
        self.components = nn.ModuleDict(
            {
                k: LinearComponents(getattr(target, k))
                for k in self.target_module_paths
            }
        )
        self.ci_fns = nn.ModuleDict(
            {k: MLPCiFn() for k in self.target_module_paths}
        )

    def forward(self, x, masks=None):
        if masks is None:  # the target, its inputs cached
            cache = {"linear1": x}
            h = self.target.linear1(x)
            cache["linear2"] = h
            return F.relu(self.target.linear2(h)), cache
        h = self.components["linear1"](x, masks["linear1"])
        return F.relu(self.components["linear2"](h, masks["linear2"]))

    def calc_causal_importances(self, pre_weight_acts):
        ci_lower, ci_upper = {}, {}
        for name, acts in pre_weight_acts.items():
            inner = self.components[name].get_inner_acts(acts)
            out = self.ci_fns[name](inner)
            ci_lower[name] = lower_leaky(out)
            ci_upper[name] = out.clamp(min=0.0)
        return ci_lower, ci_upper


def _interpolate_component_mask(ci, adv_sources_components):
    component_masks = {}
    for i, module_name in enumerate(ci):
        scaled_noise_to_add = (1 - ci[module_name]) * (
            adv_sources_components[i]
        )
        component_masks[module_name] = ci[module_name] + (
            scaled_noise_to_add
        )
    return component_masks


def _pgd_fwd_bwd(adv_sources, batch, ci, target_out, model, batch_dims):
    n_layers = len(model.target_module_paths)
    with torch.enable_grad():
        expanded = adv_sources.expand(n_layers, *batch_dims, C)
        masks = _interpolate_component_mask(ci, expanded)
        out = model(batch, masks=masks)
        sum_loss = ((out - target_out) ** 2).sum()
    # take the gradient wrt the unexpanded adv_sources
    (adv_sources_grads,) = torch.autograd.grad(sum_loss, adv_sources)
    n_examples = target_out.shape.numel()
    return sum_loss, n_examples, adv_sources_grads


def pgd_masked_recon_loss_update(
    model, batch, ci, target_out, n_steps=2, step_size=0.1
):
    batch_dims = next(iter(ci.values())).shape[:-1]
    n_layers = len(ci)
    adv_source_shape = torch.Size([n_layers, 1, C])  # shared
    adv_sources = torch.rand(adv_source_shape).requires_grad_(True)

    fwd_bwd_fn = partial(
        _pgd_fwd_bwd,
        adv_sources=adv_sources,
        batch=batch,
        ci=ci,
        target_out=target_out,
        model=model,
        batch_dims=batch_dims,
    )

    for _ in range(n_steps):
        assert adv_sources.grad is None
        _, _, adv_sources_grads = fwd_bwd_fn()
        with torch.no_grad():
            adv_sources.add_(step_size * adv_sources_grads.sign())
            adv_sources.clamp_(0.0, 1.0)

    sum_loss, total_n_examples, _ = fwd_bwd_fn()
    return sum_loss, total_n_examples


def compute_total_loss(model, batch, ci_lower, ci_upper, target_out):
    faithfulness = sum(
        (
            (
                getattr(model.target, k).weight
                - (model.components[k].V @ model.components[k].U).T
            )
            ** 2
        ).sum()
        for k in model.target_module_paths
    )
    importance_minimality = sum(
        (ci + 1e-12).pow(0.9).sum(-1).mean() for ci in ci_upper.values()
    )
    sum_loss, n_examples = pgd_masked_recon_loss_update(
        model, batch, ci_lower, target_out
    )
    pgd_recon = sum_loss / n_examples
    terms = [(1.0, faithfulness), (3e-3, importance_minimality)]
    terms.append((1.0, pgd_recon))
    return sum(coeff * loss for coeff, loss in terms)


def sparse_batch(n=16, p=0.2):
    x = torch.rand(n, n_features)
    return x * (torch.rand(n, n_features) < p)


model = ComponentModel(TMS())
params = list(model.components.parameters()) + list(
    model.ci_fns.parameters()
)
params = [p for p in params if p.requires_grad]
optimizer = torch.optim.AdamW(params, lr=1e-2)

for step in range(3):
    batch = sparse_batch()
    with torch.no_grad():
        target_out, pre_weight_acts = model(batch)
    ci_lower, ci_upper = model.calc_causal_importances(pre_weight_acts)
    total_loss = compute_total_loss(
        model, batch, ci_lower, ci_upper, target_out
    )
    optimizer.zero_grad()
    total_loss.backward()
    optimizer.step()
    print(f"step {step}: total loss {total_loss.item():.4f}")
