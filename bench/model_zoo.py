"""The whole models bench/models.py times, written by hand in torch (no torchvision): the
lecture MLP, VGG-11, ResNet-18, MobileNetV2 and a BERT-base encoder layer. Each builder
returns (module in eval mode, example input); weights come from torch.manual_seed(0)."""
import torch
from torch import nn


def mlp(batch):
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    return model, torch.randn(batch, 784)


def vgg11(batch):
    layers, c = [], 3
    for v in [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU()]
            c = v
    model = nn.Sequential(*layers, nn.Flatten(), nn.Linear(512 * 7 * 7, 4096), nn.ReLU(),
                          nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 1000))
    return model, torch.randn(batch, 3, 224, 224)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        blocks, c = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            blocks += [BasicBlock(c, cout, stride), BasicBlock(cout, cout, 1)]
            c = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        y = self.blocks(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


def resnet18(batch):
    return _randomize_bn(ResNet18()), torch.randn(batch, 3, 224, 224)


def _conv_bn(cin, cout, k, stride, groups=1, relu=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, nn.ReLU6()) if relu else nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = [_conv_bn(cin, hidden, 1, 1)] if expand != 1 else []
        layers += [_conv_bn(hidden, hidden, 3, stride, groups=hidden),
                   _conv_bn(hidden, cout, 1, 1, relu=False)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


class MobileNetV2(nn.Module):
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]  # expand, channels, repeats, first stride

    def __init__(self):
        super().__init__()
        layers, c = [_conv_bn(3, 32, 3, 2)], 32
        for expand, cout, repeats, stride in self.SETTINGS:
            for i in range(repeats):
                layers.append(InvertedResidual(c, cout, stride if i == 0 else 1, expand))
                c = cout
        layers.append(_conv_bn(c, 1280, 1, 1))
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(1280, 1000)

    def forward(self, x):
        y = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        return self.fc(torch.flatten(y, 1))


def mobilenetv2(batch):
    return _randomize_bn(MobileNetV2()), torch.randn(batch, 3, 224, 224)


class EncoderLayer(nn.Module):
    """BERT-base's post-norm encoder layer (hidden 768, 12 heads, FFN 3072, GELU), written out
    so every exporter sees plain matmuls and softmax."""

    def __init__(self, d=768, heads=12, ffn=3072):
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, d // self.heads).permute(
            2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) * (d // self.heads) ** -0.5, dim=-1)
        y = self.ln1(x + self.out((att @ v).transpose(1, 2).reshape(b, s, d)))
        return self.ln2(y + self.fc2(nn.functional.gelu(self.fc1(y))))


def bert_layer(batch):
    return EncoderLayer(), torch.randn(batch, 128, 768)


def _randomize_bn(model):
    """Non-trivial running statistics, so batch norm is not an identity in eval mode."""
    gen = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
    return model


# name -> (builder, batch)
MODELS = {
    "mlp-b1": (mlp, 1), "mlp-b64": (mlp, 64), "vgg11": (vgg11, 1),
    "resnet18": (resnet18, 1), "resnet18-b8": (resnet18, 8), "mobilenetv2": (mobilenetv2, 1),
    "bert-layer": (bert_layer, 1), "bert-layer-b8": (bert_layer, 8),
}


def build(name):
    builder, batch = MODELS[name]
    torch.manual_seed(0)
    model, example = builder(batch)
    return model.eval(), example
