"""Replays uploaded predictions (hidden-test submissions) through the STARK benchmark."""

from workers.methods.stark_predictions.plugin import StarkUploadedPredictions, load_predictions

__all__ = ["StarkUploadedPredictions", "load_predictions"]
