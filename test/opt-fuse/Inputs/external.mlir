func.func private @f(%x: tensor<4xf32>)
