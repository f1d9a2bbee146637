"""家语: compile what people say to a smart home into safe device commands."""
