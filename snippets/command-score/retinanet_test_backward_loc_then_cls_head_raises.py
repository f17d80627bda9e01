"""pytorch-retinanet's test(): the box-regression outputs and the
class scores of one forward backpropagated one after the other.

Source: https://github.com/kuangliu/pytorch-retinanet/issues/38
The user wanted to run retinanet.py's test(): one forward of a
RetinaNet on random images, then random gradients pushed back from
the location predictions and from the class predictions, so that
both heads and the FPN they share take a backward pass.
Kept: RetinaNet.forward (every FPN feature map through the location
head and the classification head, each output permuted and flattened
per anchor, the levels concatenated), _make_head (convolutions with
ReLU(True), then one to the anchors' outputs) and test() as
released; changed: FPN50 became two strided convolutions with 1x1
laterals giving two feature maps of 16 channels, heads of two
convolutions, 2 images of 3x32x32.
"""

import torch
from torch import nn

torch.manual_seed(0)
CH = 16


class FPN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 24, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(24, 32, 3, stride=2, padding=1)
        self.lat1 = nn.Conv2d(24, CH, 1)
        self.lat2 = nn.Conv2d(32, CH, 1)

    def forward(self, x):
        f1 = torch.relu(self.c1(x))
        f2 = torch.relu(self.c2(f1))
        p2 = self.lat2(f2)
        up = nn.functional.interpolate(p2, scale_factor=2.0)
        return [self.lat1(f1) + up, p2]


class RetinaNet(nn.Module):
    num_anchors = 9
    num_classes = 20

    def __init__(self):
        super().__init__()
        self.fpn = FPN()
        self.loc_head = self._make_head(self.num_anchors * 4)
        self.cls_head = self._make_head(
            self.num_anchors * self.num_classes
        )

    def forward(self, x):
        fms = self.fpn(x)
        loc_preds = []
        cls_preds = []
        for fm in fms:
            loc_pred = self.loc_head(fm)
            cls_pred = self.cls_head(fm)
            loc_pred = (
                loc_pred.permute(0, 2, 3, 1)
                .contiguous()
                .view(x.size(0), -1, 4)
            )
            cls_pred = (
                cls_pred.permute(0, 2, 3, 1)
                .contiguous()
                .view(x.size(0), -1, self.num_classes)
            )
            loc_preds.append(loc_pred)
            cls_preds.append(cls_pred)
        return torch.cat(loc_preds, 1), torch.cat(cls_preds, 1)

    def _make_head(self, out_planes):
        layers = [nn.Conv2d(CH, CH, 3, padding=1), nn.ReLU(True)]
        layers.append(nn.Conv2d(CH, out_planes, 3, padding=1))
        return nn.Sequential(*layers)


def test():
    net = RetinaNet()
    loc_preds, cls_preds = net(torch.randn(2, 3, 32, 32))
    print(loc_preds.size())
    print(cls_preds.size())
    loc_grads = torch.randn(loc_preds.size())
    cls_grads = torch.randn(cls_preds.size())
    loc_preds.backward(loc_grads)
    cls_preds.backward(cls_grads)


test()
