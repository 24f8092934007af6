import Hardware
