"""What the rest of the control plane does before and around the scheduler: the API server's
admission of new objects (admission/) and the controllers that turn objects into pods and bind
volumes (controllers/)."""
