pytest_plugins = ["support_reports"]
