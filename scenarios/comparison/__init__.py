"""Independent-simulator comparisons: our four-wheel car against CommonRoad's MB model."""
