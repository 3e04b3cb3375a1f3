"""Numerical checks of the emitted layers against independent PyTorch references."""
