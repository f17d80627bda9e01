"""SPD's PGD reconstruction loss, trained on, its last forward a
forward only: the gradient of the adversarial sources is taken in the
PGD steps, not on the loss that goes into the total loss.

Source: https://github.com/goodfire-ai/spd/pull/252
The merged fix (commit c9cf47d): _pgd_fwd_bwd became
_forward_with_adv_sources, which returns (sum_loss, n_examples); each
PGD step takes torch.autograd.grad of its own loss, and the function
returns fwd_pass(), a last forward whose graph nothing frees before
the training step's backward.
Kept: the raising program's target, component model, ci functions,
losses and training loop; changed: the PGD loss as the fix has it,
and a check that each step's gradients equal those of the total loss
made again on a copy of the model taken as the step starts, with the
PGD sources the step found (compute_total_loss takes them for the
check), and that V and U of both layers get a gradient.
"""

import copy
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


def _forward_with_adv_sources(
    model, batch, adv_sources, ci, target_out, batch_dims
):
    n_layers = len(model.target_module_paths)
    expanded = adv_sources.expand(n_layers, *batch_dims, C)
    masks = _interpolate_component_mask(ci, expanded)
    out = model(batch, masks=masks)
    sum_loss = ((out - target_out) ** 2).sum()
    n_examples = target_out.shape.numel()
    return sum_loss, n_examples


last_sources = {}  # for the check below only


def pgd_masked_recon_loss_update(
    model, batch, ci, target_out, n_steps=2, step_size=0.1
):
    batch_dims = next(iter(ci.values())).shape[:-1]
    n_layers = len(ci)
    adv_source_shape = torch.Size([n_layers, 1, C])  # shared
    adv_sources = torch.rand(adv_source_shape).requires_grad_(True)

    fwd_pass = partial(
        _forward_with_adv_sources,
        model=model,
        batch=batch,
        adv_sources=adv_sources,
        ci=ci,
        target_out=target_out,
        batch_dims=batch_dims,
    )

    for _ in range(n_steps):
        assert adv_sources.grad is None
        with torch.enable_grad():
            sum_loss, n_examples = fwd_pass()
            loss = sum_loss / n_examples
        (adv_sources_grads,) = torch.autograd.grad(loss, adv_sources)
        with torch.no_grad():
            adv_sources.add_(step_size * adv_sources_grads.sign())
            adv_sources.clamp_(0.0, 1.0)

    last_sources["value"] = adv_sources.detach().clone()
    return fwd_pass()


def compute_total_loss(
    model, batch, ci_lower, ci_upper, target_out, sources=None
):
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
    if sources is None:
        sum_loss, n_examples = pgd_masked_recon_loss_update(
            model, batch, ci_lower, target_out
        )
    else:  # the check's reference: the sources PGD found, fixed
        sum_loss, n_examples = _forward_with_adv_sources(
            model, batch, sources, ci_lower, target_out, batch.shape[:1]
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
    ref = copy.deepcopy(model)  # the model as this step starts
    with torch.no_grad():
        target_out, pre_weight_acts = model(batch)
    ci_lower, ci_upper = model.calc_causal_importances(pre_weight_acts)
    total_loss = compute_total_loss(
        model, batch, ci_lower, ci_upper, target_out
    )
    optimizer.zero_grad()
    total_loss.backward()
    # reference: the total loss made again on the copy, at the
    # sources this step's PGD found
    ref_lower, ref_upper = ref.calc_causal_importances(pre_weight_acts)
    ref_total = compute_total_loss(
        ref,
        batch,
        ref_lower,
        ref_upper,
        target_out,
        sources=last_sources["value"],
    )
    ref_params = list(ref.components.parameters()) + list(
        ref.ci_fns.parameters()
    )
    ref_params = [p for p in ref_params if p.requires_grad]
    ref_grads = torch.autograd.grad(ref_total, ref_params)
    same = all(
        p.grad is not None and torch.allclose(p.grad, r, atol=1e-6)
        for p, r in zip(params, ref_grads)
    )
    trained = all(
        model.components[k].V.grad.abs().sum() > 0
        and model.components[k].U.grad.abs().sum() > 0
        for k in model.target_module_paths
    )
    optimizer.step()
    print(
        f"step {step}: total loss {total_loss.item():.4f}, "
        f"grads = a fresh forward's: {same}, "
        f"V and U of both layers trained: {trained}"
    )
