// Console
