"""What every transcript reader shares: message fields, call pairing, recorded HTTP calls."""
