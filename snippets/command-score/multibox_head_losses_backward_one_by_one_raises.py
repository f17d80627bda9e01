"""jeremyfix's multi-object detection lab: the box, class and
objectness losses backpropagated one by one, `retain_graph` taken out.

Source: https://github.com/jeremyfix/deeplearning-lectures/issues/20
The user wanted to train the lab's multi-object detector: a head on
pre-extracted CNN features that predicts, in every grid cell, a box,
class scores and an objectness score, with an L1 box loss and a cross
entropy on the cells that hold an object and a binary cross entropy
on every cell's objectness, then one optimizer step. The user asked
why `c_loss.backward(retain_graph=True)` keeps the graph and whether
the losses should be summed and backpropagated once; the raising
program is the loop with `retain_graph=True` taken out, the first
edit the question invites.
Kept: MultipleBboxHead (a box head and a class head of 1x1
convolutions with ReLU, BatchNorm and Dropout, the class head's last
channel being the objectness), train_multiple_objects' losses
(alpha_bbox, the masks of the cells with an object, the per-cell
cross entropy, the objectness BCE on sigmoid outputs) and its three
backward calls before the step; changed: random 16-channel 4x4
feature maps instead of ResNet features of PASCAL VOC, hidden widths
32 and 16 instead of 1024 and 512, 3 classes, boolean masks instead
of .byte(), no progress bar and no model.penalty().
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class MultipleBboxHead(nn.Module):
    def __init__(self, num_channels, num_classes, num_box):
        super().__init__()
        self.head_bbox = nn.Sequential(
            nn.Conv2d(num_channels, 32, kernel_size=1, bias=False),
            nn.ReLU(),
            nn.BatchNorm2d(32),
            nn.Dropout(),
            nn.Conv2d(32, 16, kernel_size=1, bias=False),
            nn.ReLU(),
            nn.BatchNorm2d(16),
            nn.Dropout(),
            nn.Conv2d(16, 4 * num_box, kernel_size=1),
            nn.Sigmoid(),
        )
        self.head_class = nn.Sequential(
            nn.Conv2d(num_channels, 32, kernel_size=1, bias=False),
            nn.ReLU(),
            nn.BatchNorm2d(32),
            nn.Dropout(),
            nn.Conv2d(32, 16, kernel_size=1, bias=False),
            nn.ReLU(),
            nn.BatchNorm2d(16),
            nn.Dropout(),
            nn.Conv2d(16, num_box * (num_classes + 1), kernel_size=1),
        )

    def forward(self, features):
        y_bbox = self.head_bbox(features)
        y_class = self.head_class(features)
        return y_bbox, y_class[:, :-1, :, :], y_class[:, -1, :, :]


def make_loader(batches=2, batch_size=4, num_classes=3):
    data = []
    for _ in range(batches):
        inputs = torch.randn(batch_size, 16, 4, 4)
        bboxes = torch.rand(batch_size, 4, 4, 4)
        labels = torch.randint(0, num_classes, (batch_size, 4, 4))
        has_obj = (torch.rand(batch_size, 4, 4) < 0.4).long()
        data.append((inputs, bboxes, labels, has_obj))
    return data


def train_multiple_objects(model, loader, optimizer):
    alpha_bbox = 200.0
    model.train()
    for i, (inputs, bboxes, labels, has_obj) in enumerate(loader):
        has_obj_idx = has_obj.bool()
        outputs = model(inputs)
        predicted_bboxes = outputs[0]
        predicted_logits = outputs[1]
        predicted_hasobj = outputs[2]
        num_gt_objects = has_obj.sum().item()

        grid_cells_regression_loss = (
            torch.sum(torch.abs(predicted_bboxes - bboxes), 1) / 4.0
        )
        b_loss = (
            alpha_bbox
            * torch.sum(grid_cells_regression_loss[has_obj_idx])
            / num_gt_objects
        )

        numclass = predicted_logits.shape[1]
        reshaped_predicted_logits = (
            predicted_logits.permute(0, 2, 3, 1)
            .contiguous()
            .view(-1, numclass)
        )
        reshaped_labels = labels.view(-1).long()
        grid_cells_classification_loss = F.cross_entropy(
            reshaped_predicted_logits, reshaped_labels, reduction="none"
        )
        c_loss = (
            torch.sum(
                grid_cells_classification_loss[has_obj_idx.view(-1)]
            )
            / num_gt_objects
        )

        obj_loss = F.binary_cross_entropy(
            torch.sigmoid(predicted_hasobj), has_obj.float()
        )
        print(
            f"batch {i}: bbox {b_loss.item():.2f}, "
            f"class {c_loss.item():.4f}, obj {obj_loss.item():.4f}"
        )

        optimizer.zero_grad()
        b_loss.backward()
        c_loss.backward()
        obj_loss.backward()
        optimizer.step()


model = MultipleBboxHead(16, 3, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
train_multiple_objects(model, make_loader(), optimizer)
