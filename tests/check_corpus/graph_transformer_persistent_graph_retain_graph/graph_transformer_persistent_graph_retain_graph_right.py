# https://github.com/dmlc/dgl/issues/4285
import contextlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Graph:
    """Minimal stand-in for a DGLGraph (torch backend)."""

    def __init__(self, src, dst, num_nodes):
        self.src, self.dst, self.num_nodes = src, dst, num_nodes
        self.ndata, self.edata = {}, {}

    @contextlib.contextmanager
    def local_scope(self):
        saved_n, saved_e = dict(self.ndata), dict(self.edata)
        try:
            yield
        finally:
            self.ndata, self.edata = saved_n, saved_e

    def edges(self):
        return torch.arange(len(self.src))

    def apply_edges(self, func):
        self.edata.update(func(self))

    def _set_n_repr_rows(self, key, rows, value):
        if key in self.ndata:
            column = self.ndata[key]
        else:
            column = torch.zeros((self.num_nodes,) + tuple(value.shape[1:]), dtype=value.dtype)
        self.ndata[key] = column.index_copy(0, rows, value)

    def send_and_recv(self, eids, message_func, reduce_func):
        u, v = self.src[eids], self.dst[eids]
        msg_field, msgs = message_func(self, u, eids)
        out_field = reduce_func(msg_field)
        recv = torch.unique(v)
        summed = torch.zeros((self.num_nodes,) + tuple(msgs.shape[1:])).index_add(0, v, msgs)
        self._set_n_repr_rows(out_field, recv, summed[recv])


def src_mul_edge(src_field, edge_field, out_field):
    def func(g, u, eids):
        return out_field, g.ndata[src_field][u] * g.edata[edge_field][eids]
    return func


def copy_edge(edge_field, out_field):
    def func(g, u, eids):
        return out_field, g.edata[edge_field][eids]
    return func


def fn_sum(msg_field, out_field):
    return lambda field: out_field


def src_dot_dst(src_field, dst_field, out_field):
    return lambda g: {out_field: g.ndata[src_field][g.src] * g.ndata[dst_field][g.dst]}


def scaling(field, scale_constant):
    return lambda g: {field: g.edata[field] / scale_constant}


def imp_exp_attn(implicit_attn, explicit_edge):
    return lambda g: {implicit_attn: g.edata[implicit_attn] * g.edata[explicit_edge]}


def out_edge_features(edge_feat):
    return lambda g: {'e_out': g.edata[edge_feat]}


def exp(field):
    return lambda g: {field: torch.exp((g.edata[field].sum(-1, keepdim=True)).clamp(-5, 5))}


class MultiHeadAttentionLayer(nn.Module):
    def __init__(self, in_dim, out_dim, num_heads):
        super().__init__()
        self.out_dim, self.num_heads = out_dim, num_heads
        self.Q = nn.Linear(in_dim, out_dim * num_heads, bias=False)
        self.K = nn.Linear(in_dim, out_dim * num_heads, bias=False)
        self.V = nn.Linear(in_dim, out_dim * num_heads, bias=False)
        self.proj_e = nn.Linear(in_dim, out_dim * num_heads, bias=False)

    def propagate_attention(self, g):
        g.apply_edges(src_dot_dst('K_h', 'Q_h', 'score'))
        g.apply_edges(scaling('score', np.sqrt(self.out_dim)))
        g.apply_edges(imp_exp_attn('score', 'proj_e'))
        g.apply_edges(out_edge_features('score'))
        g.apply_edges(exp('score'))
        eids = g.edges()
        g.send_and_recv(eids, src_mul_edge('V_h', 'score', 'V_h'), fn_sum('V_h', 'wV'))
        g.send_and_recv(eids, copy_edge('score', 'score'), fn_sum('score', 'z'))

    def forward(self, g, h, e):
        with g.local_scope():
            g.ndata['Q_h'] = self.Q(h).view(-1, self.num_heads, self.out_dim)
            g.ndata['K_h'] = self.K(h).view(-1, self.num_heads, self.out_dim)
            g.ndata['V_h'] = self.V(h).view(-1, self.num_heads, self.out_dim)
            g.edata['proj_e'] = self.proj_e(e).view(-1, self.num_heads, self.out_dim)
            self.propagate_attention(g)
            h_out = g.ndata['wV'] / (g.ndata['z'] + torch.full_like(g.ndata['z'], 1e-6))
            e_out = g.edata['e_out']
        return h_out, e_out


class GraphTransformerLayer(nn.Module):
    def __init__(self, in_dim, out_dim, num_heads):
        super().__init__()
        self.out_channels = out_dim
        self.attention = MultiHeadAttentionLayer(in_dim, out_dim // num_heads, num_heads)
        self.O_h = nn.Linear(out_dim, out_dim)
        self.O_e = nn.Linear(out_dim, out_dim)
        self.layer_norm1_h = nn.LayerNorm(out_dim)
        self.layer_norm1_e = nn.LayerNorm(out_dim)
        self.FFN_h_layer1 = nn.Linear(out_dim, out_dim * 2)
        self.FFN_h_layer2 = nn.Linear(out_dim * 2, out_dim)
        self.FFN_e_layer1 = nn.Linear(out_dim, out_dim * 2)
        self.FFN_e_layer2 = nn.Linear(out_dim * 2, out_dim)

    def forward(self, g, h, e):
        h_in1, e_in1 = h, e
        h_attn_out, e_attn_out = self.attention(g, h, e)
        h = self.O_h(h_attn_out.view(-1, self.out_channels))
        e = self.O_e(e_attn_out.view(-1, self.out_channels))
        h = self.layer_norm1_h(h_in1 + h)
        e = self.layer_norm1_e(e_in1 + e)
        h = h + self.FFN_h_layer2(F.relu(self.FFN_h_layer1(h)))
        e = e + self.FFN_e_layer2(F.relu(self.FFN_e_layer1(e)))
        return h, e


class GraphTransformerNet(nn.Module):
    def __init__(self, in_dim_node, in_dim_edge, hidden_dim, num_heads, pos_enc_dim, L=2):
        super().__init__()
        self.embedding_h = nn.Linear(in_dim_node, hidden_dim)
        self.embedding_e = nn.Linear(in_dim_edge, hidden_dim)
        self.embedding_lap_pos_enc = nn.Linear(pos_enc_dim, hidden_dim)
        self.layers = nn.ModuleList([GraphTransformerLayer(hidden_dim, hidden_dim, num_heads) for _ in range(L)])
        self.MLP_layer = nn.Linear(hidden_dim, 1)

    def forward(self, g, h, e, h_lap_pos_enc):
        h = self.embedding_h(h) + self.embedding_lap_pos_enc(h_lap_pos_enc)
        e = self.embedding_e(e)
        for conv in self.layers:
            h, e = conv(g, h, e)
        return self.MLP_layer(h)


num_nodes = 6
src = torch.tensor([0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 5, 5])
dst = torch.tensor([1, 0, 2, 1, 3, 2, 4, 3, 0, 4, 0, 2])
g_dgl = Graph(src, dst, num_nodes)
g_dgl.ndata["lap_pos_enc"] = torch.randn(num_nodes, 3)
h = torch.randn(num_nodes, 5)
e = torch.randn(len(src), 2)
node_label = [torch.randn(num_nodes, 1)]

model = GraphTransformerNet(in_dim_node=5, in_dim_edge=2, hidden_dim=16, num_heads=4, pos_enc_dim=3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

criteria = nn.MSELoss()
for n in range(3):
    lp_pe = g_dgl.ndata["lap_pos_enc"]
    out = model(g_dgl, h, e, lp_pe)
    loss = criteria(node_label[0], out)
    print(f"epoch #{n}, loss:{loss}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
