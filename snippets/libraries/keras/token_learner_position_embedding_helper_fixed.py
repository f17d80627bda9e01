"""Fix for the TokenLearner example on the torch backend (keras-core
pull 727): the helper adds a layer whose call embeds the positions, so
every training step builds the embedding afresh and trains it."""

import math
import os

os.environ["KERAS_BACKEND"] = "torch"

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers, ops  # noqa: E402

keras.utils.set_random_seed(0)

INPUT_SHAPE = (8, 8, 3)
PATCH_SIZE = 2
NUM_PATCHES = (INPUT_SHAPE[0] // PATCH_SIZE) ** 2
PROJECTION_DIM = 8
NUM_HEADS = 2
NUM_LAYERS = 2
MLP_UNITS = [PROJECTION_DIM * 2, PROJECTION_DIM]
NUM_TOKENS = 2
LAYER_NORM_EPS = 1e-6
NUM_CLASSES = 3


# --8<-- [start:fix]
class AddPositionEmbedding(layers.Layer):
    def __init__(self, num_patches, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.num_patches = num_patches
        self.embedding = layers.Embedding(
            input_dim=num_patches, output_dim=projection_dim
        )

    def call(self, projected_patches):
        positions = ops.arange(start=0, stop=self.num_patches, step=1)
        return projected_patches + self.embedding(positions)


def position_embedding(
    projected_patches,
    num_patches=NUM_PATCHES,
    projection_dim=PROJECTION_DIM,
):
    return AddPositionEmbedding(num_patches, projection_dim)(
        projected_patches
    )


# --8<-- [end:fix]


def mlp(x, dropout_rate, hidden_units):
    for units in hidden_units:
        x = layers.Dense(units, activation=ops.gelu)(x)
        x = layers.Dropout(dropout_rate)(x)
    return x


def token_learner(inputs, number_of_tokens=NUM_TOKENS):
    x = layers.LayerNormalization(epsilon=LAYER_NORM_EPS)(inputs)
    attention_maps = keras.Sequential(
        [
            layers.Conv2D(
                number_of_tokens,
                3,
                activation=ops.gelu,
                padding="same",
                use_bias=False,
            ),
            layers.Conv2D(
                number_of_tokens,
                3,
                activation="sigmoid",
                padding="same",
                use_bias=False,
            ),
            layers.Reshape((-1, number_of_tokens)),
            layers.Permute((2, 1)),
        ]
    )(x)
    num_filters = inputs.shape[-1]
    inputs = layers.Reshape((1, -1, num_filters))(inputs)
    attended_inputs = ops.expand_dims(attention_maps, axis=-1) * inputs
    return ops.mean(attended_inputs, axis=2)


def transformer(encoded_patches):
    x1 = layers.LayerNormalization(epsilon=LAYER_NORM_EPS)(
        encoded_patches
    )
    attention_output = layers.MultiHeadAttention(
        num_heads=NUM_HEADS, key_dim=PROJECTION_DIM, dropout=0.1
    )(x1, x1)
    x2 = layers.Add()([attention_output, encoded_patches])
    x3 = layers.LayerNormalization(epsilon=LAYER_NORM_EPS)(x2)
    x4 = mlp(x3, hidden_units=MLP_UNITS, dropout_rate=0.1)
    return layers.Add()([x4, x2])


def create_vit_classifier(token_learner_units=NUM_TOKENS):
    inputs = layers.Input(shape=INPUT_SHAPE)
    augmented = layers.Rescaling(1 / 255.0)(inputs)
    projected_patches = layers.Conv2D(
        filters=PROJECTION_DIM,
        kernel_size=(PATCH_SIZE, PATCH_SIZE),
        strides=(PATCH_SIZE, PATCH_SIZE),
        padding="VALID",
    )(augmented)
    _, h, w, c = projected_patches.shape
    projected_patches = layers.Reshape((h * w, c))(projected_patches)
    # Add positional embeddings to the projected patches.
    encoded_patches = position_embedding(projected_patches)
    encoded_patches = layers.Dropout(0.1)(encoded_patches)
    for i in range(NUM_LAYERS):
        encoded_patches = transformer(encoded_patches)
        if i == NUM_LAYERS // 2:
            _, hh, c = encoded_patches.shape
            h = int(math.sqrt(hh))
            encoded_patches = layers.Reshape((h, h, c))(encoded_patches)
            encoded_patches = token_learner(
                encoded_patches, token_learner_units
            )
    representation = layers.LayerNormalization(epsilon=LAYER_NORM_EPS)(
        encoded_patches
    )
    representation = layers.GlobalAvgPool1D()(representation)
    outputs = layers.Dense(NUM_CLASSES, activation="softmax")(
        representation
    )
    return keras.Model(inputs=inputs, outputs=outputs)


class PrintLoss(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        grad = embed.value.grad
        print(
            f"batch {batch}: loss {logs['loss']:.3f}, position "
            f"embedding grad nonzero: {bool(grad.abs().sum() > 0)}"
        )


rng = np.random.default_rng(0)
x_train = rng.uniform(0, 255, (8, *INPUT_SHAPE)).astype("float32")
y_train = rng.integers(0, NUM_CLASSES, 8)

vit_token_learner = create_vit_classifier()
embed = next(
    w
    for w in vit_token_learner.trainable_weights
    if w.path.endswith("embeddings")
)
before = ops.convert_to_numpy(embed.value).copy()
vit_token_learner.compile(
    optimizer=keras.optimizers.AdamW(
        learning_rate=0.001, weight_decay=0.0001
    ),
    loss="sparse_categorical_crossentropy",
)
vit_token_learner.fit(
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
