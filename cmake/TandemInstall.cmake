# install rules: being written
