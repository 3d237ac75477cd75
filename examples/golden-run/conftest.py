# The scripted fake model of ../fake_model.py; `pytest -p no:fake_model` asks the real API.
pytest_plugins = ["fake_model"]
