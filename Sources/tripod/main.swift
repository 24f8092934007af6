print("tripod")
