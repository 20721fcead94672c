"""Table geometry, seats, card references and microphone channels."""
