"""Training helpers: recipes from the papers (more arrive with notebooks 02-04)."""

from .classify import FitResult, accuracy, fit_classifier

__all__ = ["FitResult", "accuracy", "fit_classifier"]
