"""Fix for the FNet classifier of Keras's MLP-models example on the
torch backend (keras-core pull 663): the positions are embedded in a
layer's call, so every training step builds the embedding afresh and
trains it."""

import os

os.environ["KERAS_BACKEND"] = "torch"

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers, ops  # noqa: E402

keras.utils.set_random_seed(0)

num_classes = 3
input_shape = (8, 8, 3)
dropout_rate = 0.2
patch_size = 2
num_patches = (input_shape[0] // patch_size) ** 2
embedding_dim = 8
num_blocks = 2

rng = np.random.default_rng(0)
x_train = rng.uniform(0, 255, (8, *input_shape)).astype("float32")
y_train = rng.integers(0, num_classes, 8)


class Patches(layers.Layer):
    def __init__(self, patch_size, num_patches):
        super().__init__()
        self.patch_size = patch_size
        self.num_patches = num_patches

    def call(self, images):
        batch_size = ops.shape(images)[0]
        patches = ops.image.extract_patches(images, self.patch_size)
        patch_dims = patches.shape[-1]
        return ops.reshape(
            patches, [batch_size, self.num_patches, patch_dims]
        )


# --8<-- [start:fix]
class AddPositionEmbedding(layers.Layer):
    def __init__(self, num_patches, embedding_dim, **kwargs):
        super().__init__(**kwargs)
        self.num_patches = num_patches
        self.embedding = layers.Embedding(
            input_dim=num_patches, output_dim=embedding_dim
        )

    def call(self, x):
        positions = ops.arange(start=0, stop=self.num_patches, step=1)
        return x + self.embedding(positions)


# --8<-- [end:fix]


def build_classifier(blocks, positional_encoding=False):
    inputs = layers.Input(shape=input_shape)
    augmented = data_augmentation(inputs)
    patches = Patches(patch_size, num_patches)(augmented)
    x = layers.Dense(units=embedding_dim)(patches)
    if positional_encoding:
        x = AddPositionEmbedding(num_patches, embedding_dim)(x)
    x = blocks(x)
    representation = layers.GlobalAveragePooling1D()(x)
    representation = layers.Dropout(rate=dropout_rate)(representation)
    logits = layers.Dense(num_classes)(representation)
    return keras.Model(inputs=inputs, outputs=logits)


data_augmentation = keras.Sequential(
    [layers.Normalization()], name="data_augmentation"
)
data_augmentation.layers[0].adapt(x_train)


class FNetLayer(layers.Layer):
    def __init__(self, num_patches, embedding_dim, dropout_rate, **kw):
        super().__init__(**kw)
        self.ffn = keras.Sequential(
            [
                layers.Dense(units=embedding_dim, activation="gelu"),
                layers.Dropout(rate=dropout_rate),
                layers.Dense(units=embedding_dim),
            ]
        )
        self.normalize1 = layers.LayerNormalization(epsilon=1e-6)
        self.normalize2 = layers.LayerNormalization(epsilon=1e-6)

    def call(self, inputs):
        # Apply fourier transformations (the real part).
        x, _ = ops.fft2((inputs, ops.zeros_like(inputs)))
        x = x + inputs
        x = self.normalize1(x)
        x = x + self.ffn(x)
        return self.normalize2(x)


class PrintLoss(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        grad = embed.value.grad
        print(
            f"batch {batch}: loss {logs['loss']:.3f}, position "
            f"embedding grad nonzero: {bool(grad.abs().sum() > 0)}"
        )


fnet_blocks = keras.Sequential(
    [
        FNetLayer(num_patches, embedding_dim, dropout_rate)
        for _ in range(num_blocks)
    ]
)
fnet_classifier = build_classifier(
    fnet_blocks, positional_encoding=True
)
embed = next(
    w
    for w in fnet_classifier.trainable_weights
    if w.path.endswith("embeddings")
)
before = ops.convert_to_numpy(embed.value).copy()
fnet_classifier.compile(
    optimizer=keras.optimizers.AdamW(
        learning_rate=0.001, weight_decay=0.0001
    ),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
fnet_classifier.fit(
    x_train,
    y_train,
    batch_size=4,
    epochs=1,
    verbose=0,
    shuffle=False,
    callbacks=[PrintLoss()],
)
after = ops.convert_to_numpy(embed.value)
print(
    "position embedding trained:",
    bool(np.abs(after - before).max() > 1e-6),
)
