"""scripts/engines' parts: the pinned packages, the plan, the runs and the report."""
