"""``keras.layers``: the layers of Keras 3 that tapers implements, over tapers' ops and Variables."""

from ._activation_layers import (
    ELU,
    ActivityRegularization,
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    Lambda,
    LeakyReLU,
    PReLU,
    Rescaling,
    Softmax,
    SpatialDropout1D,
    SpatialDropout2D,
    UnitNormalization,
)
from ._attention import AdditiveAttention, Attention, Dot, EinsumDense, MultiHeadAttention, dot
from ._base import Input, InputLayer, InputSpec, KerasTensor, Layer, Wrapper
from ._conv import AveragePooling2D, Conv2D, MaxPooling2D
from ._conv_extra import (
    Conv1D,
    Conv1DTranspose,
    Conv2DTranspose,
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
)
from ._conv_rnn import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from ._core_layers import Activation, Dense, Dropout, Embedding, Flatten, ReLU, Reshape
from ._image_color import (
    AutoContrast,
    CutMix,
    Equalization,
    MixUp,
    RandomBrightness,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomContrast,
    RandomErasing,
    RandomGaussianBlur,
    RandomGrayscale,
    RandomHue,
    RandomInvert,
    RandomPosterization,
    RandomSaturation,
    RandomSharpness,
    Solarization,
)
from ._image_preprocessing import (
    CenterCrop,
    Pipeline,
    RandomCrop,
    RandomFlip,
    RandomPerspective,
    RandomRotation,
    RandomShear,
    RandomTranslation,
    RandomZoom,
    Resizing,
)
from ._layers3d import (
    AveragePooling3D,
    AvgPool3D,
    Conv3D,
    Conv3DTranspose,
    Cropping3D,
    MaxPool3D,
    MaxPooling3D,
    SpatialDropout3D,
    UpSampling3D,
    ZeroPadding3D,
)
from ._layers_more import (
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
    GroupedQueryAttention,
    GroupQueryAttention,
    IntegerLookup,
    ReversibleEmbedding,
    RMSNormalization,
    SpectralNormalization,
)
from ._masking import Masking
from ._merging import (
    Add,
    Average,
    Concatenate,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    maximum,
    minimum,
    multiply,
    subtract,
)  # fmt: skip
from ._normalization import BatchNormalization, LayerNormalization
from ._pooling import (
    AveragePooling1D,
    AvgPool1D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalAvgPool3D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPool3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPool1D,
    MaxPooling1D,
)
from ._preprocessing import CategoryEncoding, Discretization, GroupNormalization, Normalization, TimeDistributed
from ._reshaping import (
    Cropping1D,
    Cropping2D,
    Identity,
    Permute,
    RepeatVector,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
from ._rnn import GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell, StackedRNNCells
from ._serialization import deserialize, serialize

AvgPool2D = AveragePooling2D
MaxPool2D = MaxPooling2D
# Keras' long names for the convolutions.
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D

__all__ = [
    "Add", "Average", "Concatenate", "Maximum", "Minimum", "Multiply", "Subtract", "add", "average", "concatenate",
    "maximum", "minimum", "multiply", "subtract",
    "Activation", "AvgPool2D", "AveragePooling2D", "BatchNormalization", "Conv2D", "Dense", "Dropout", "Embedding",
    "Flatten", "Input", "InputLayer", "KerasTensor", "Layer", "LayerNormalization", "MaxPool2D", "MaxPooling2D",
    "ReLU", "Reshape",
    "ActivityRegularization", "AdditiveAttention", "AlphaDropout", "Attention", "AveragePooling1D", "AvgPool1D",
    "Bidirectional", "Conv1D", "Conv1DTranspose", "Conv2DTranspose", "Cropping1D", "Cropping2D", "DepthwiseConv1D",
    "DepthwiseConv2D", "Dot", "ELU", "EinsumDense", "GRU", "GRUCell", "GaussianDropout", "GaussianNoise",
    "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D", "GlobalAvgPool1D",
    "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
    "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D", "Identity", "LSTM", "LSTMCell", "Lambda",
    "LeakyReLU", "MaxPool1D", "MaxPooling1D", "MultiHeadAttention", "PReLU", "Permute", "RNN", "RepeatVector",
    "Rescaling", "SeparableConv1D", "SeparableConv2D", "SimpleRNN", "SimpleRNNCell", "Softmax", "SpatialDropout1D",
    "SpatialDropout2D", "StackedRNNCells", "UnitNormalization", "UpSampling1D", "UpSampling2D", "ZeroPadding1D",
    "ZeroPadding2D",
    "AveragePooling3D", "AvgPool3D", "CategoryEncoding", "Conv3D", "Cropping3D", "Discretization",
    "GroupNormalization", "MaxPool3D", "MaxPooling3D", "Normalization", "SpatialDropout3D", "TimeDistributed",
    "UpSampling3D", "ZeroPadding3D",
    "Convolution1D", "Convolution1DTranspose", "Convolution2D", "Convolution2DTranspose", "Convolution3D",
    "Conv3DTranspose", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "Convolution3DTranspose",
    "AutoContrast", "CutMix", "Equalization", "MixUp", "RandomBrightness", "RandomColorDegeneration",
    "RandomColorJitter", "RandomContrast", "RandomErasing", "RandomGaussianBlur", "RandomGrayscale", "RandomHue",
    "RandomInvert", "RandomPosterization", "RandomSaturation", "RandomSharpness", "Solarization",
    "AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D", "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D", "GroupQueryAttention", "GroupedQueryAttention", "IntegerLookup",
    "RMSNormalization", "ReversibleEmbedding", "SpectralNormalization",
    "CenterCrop", "Pipeline", "RandomCrop", "RandomFlip", "RandomPerspective", "RandomRotation", "RandomShear",
    "RandomTranslation", "RandomZoom", "Resizing",
    "Masking",
    "InputSpec", "SeparableConvolution1D", "SeparableConvolution2D", "Wrapper", "deserialize", "dot", "serialize",
]  # fmt: skip
